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
