import Foundation

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

    /// flowrun's own mark of a run's processes (`FLOWRUN_RUN_TOKEN`), in every task's
    /// environment, so in a nested flowrun's: it lets nobody do more than the same user can
    /// already (read /proc/PID/environ, kill the processes), so it is shown as it is.
    static let runToken = "FLOWRUN_RUN_TOKEN"

    package static func looksSecret(_ name: String) -> Bool {
        guard name != runToken else { return false }
        let name = name.uppercased()
        return markers.contains { name.contains($0) }
    }

    /// What stands in `real` for each `***` of `shown` (the same field as used and as shown,
    /// `PlannedTask.shown`); the literal text between them is found from the left.
    package static func values(in real: String, shownAs shown: String) -> [String] {
        let pieces = shown.components(separatedBy: mask)
        guard pieces.count > 1, let first = pieces.first, let last = pieces.last, real.hasPrefix(first) else { return [] }
        var rest = real.dropFirst(first.count)
        var values: [String] = []
        for piece in pieces.dropFirst().dropLast() {
            guard !piece.isEmpty, let found = rest.range(of: piece) else { return values }
            values.append(String(rest[..<found.lowerBound]))
            rest = rest[found.upperBound...]
        }
        guard rest.hasSuffix(last) else { return values }
        values.append(String(rest.dropLast(last.count)))
        return values
    }

    /// `text` with each of `values` (the longest first, so that one holding another is masked
    /// whole) shown as `***`.
    package static func masked(_ text: String, values: [String]) -> String {
        masked(text, ordered: ordered(values))
    }

    /// `values` without empty ones or repeats, the longest first: the order `masked` takes them in.
    package static func ordered(_ values: [String]) -> [String] {
        Set(values.filter { !$0.isEmpty }).sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// `text` with each of `values`, already `ordered`, shown as `***` (a task's output lines are
    /// masked with values ordered once, not again for each line).
    ///
    /// By bytes first: `replacingOccurrences` compares Characters, and a value followed in the
    /// text by a combining mark (`s3cr3t\u{301}`: its last letter and the mark are one Character)
    /// was not found, and went out in clear. Then as before, for a canonically equivalent
    /// spelling of the value (`é` written as `e\u{301}`).
    package static func masked(_ text: String, ordered values: [String]) -> String {
        values.reduce(text) { maskedBytes(of: $1, in: $0).replacingOccurrences(of: $1, with: mask) }
    }

    /// `text` with each occurrence of `value`'s UTF-8 bytes, from the left, as `***`.
    private static func maskedBytes(of value: String, in text: String) -> String {
        // Most lines hold no secret: looked for in place, copied only when found.
        guard !value.isEmpty, text.utf8.firstRange(of: value.utf8) != nil else { return text }
        let bytes = Array(text.utf8)
        guard var found = bytes.firstRange(of: value.utf8) else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var start = 0
        while true {
            result += bytes[start..<found.lowerBound]
            result += mask.utf8
            start = found.upperBound
            guard let next = bytes[start...].firstRange(of: value.utf8) else { break }
            found = next
        }
        result += bytes[start...]
        return String(decoding: result, as: UTF8.self)
    }
}
