/// Formats durations for people: `0.4s`, `12.3s`, `2m05s`, `1h02m`.
///
/// Tenths of a second below a minute (what a task's timing is read for), whole seconds below an
/// hour, minutes above. Rounded to the nearest unit shown, so `59.96s` reads `1m00s`, not `60.0s`.
package enum DurationText {
    package static func string(milliseconds: Int64) -> String {
        let milliseconds = max(milliseconds, 0)
        let tenths = (milliseconds + 50) / 100
        if tenths < 600 {
            return "\(tenths / 10).\(tenths % 10)s"
        }
        let seconds = (milliseconds + 500) / 1000
        if seconds < 3600 {
            return "\(seconds / 60)m\(twoDigits(seconds % 60))s"
        }
        let minutes = (milliseconds + 30_000) / 60_000
        return "\(minutes / 60)h\(twoDigits(minutes % 60))m"
    }

    /// `string(milliseconds:)`'s text appended to `bytes`; below a minute (a task's usual
    /// line in the plain log) without making a `String` of it.
    package static func append(milliseconds: Int64, to bytes: inout [UInt8]) {
        let tenths = (max(milliseconds, 0) + 50) / 100
        guard tenths < 600 else {
            bytes += string(milliseconds: milliseconds).utf8
            return
        }
        // At most two digits of seconds, then the tenth: appended byte by byte (a buffer of
        // digits or a `String` costs several times more than the line's other pieces).
        let seconds = UInt8(tenths / 10)
        if seconds >= 10 { bytes.append(UInt8(ascii: "0") + seconds / 10) }
        bytes.append(UInt8(ascii: "0") + seconds % 10)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(tenths % 10))
        bytes.append(UInt8(ascii: "s"))
    }

    /// Seconds with three decimals, as JUnit's `time` attributes want them: `1.234`.
    static func seconds(milliseconds: Int64) -> String {
        let milliseconds = max(milliseconds, 0)
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
