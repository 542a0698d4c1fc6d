/// Names of variables whose values `--dry-run` does not print: those with TOKEN, SECRET,
/// PASSWORD, PASSWD, KEY or CREDENTIAL in them, in any case.
///
/// GitHub Actions masks the values of the secrets it was given; flowrun is given no list of
/// secrets, so it goes by name, and only for values that came from `--env` or the process
/// environment (a value written in the workflow file is in the file already).
package enum SecretName {
    /// What is printed instead of such a value, as GitHub Actions prints it.
    package static let mask = "***"

    static let markers = ["TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL"]

    package static func looksSecret(_ name: String) -> Bool {
        let name = name.uppercased()
        return markers.contains { name.contains($0) }
    }
}
