import FlowFiles

/// A child process run with the umask the test process started with.
///
/// An extraction on another test's thread sets the process's umask to 0 for a moment at every
/// entry (`DiskWriter`); a child spawned in that moment inherits 0, and a reference tool (bsdtar
/// making a folder 775 where flowrun made 755) then disagrees for no fault of flowrun's.
enum UmaskedChild {
    /// `argv` behind `sh -c 'umask M && exec "$@"'`.
    static func argv(_ argv: [String]) -> [String] {
        ["/bin/sh", "-c", "umask \(String(StartupUmask.value, radix: 8)) && exec \"$@\"", "sh"] + argv
    }
}
