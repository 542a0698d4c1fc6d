import Foundation

/// The `timestamp` and `hostname` of a JUnit `<testsuite>`, which Jenkins shows with the results.
enum SuiteAttributes {
    /// `2026-11-23T10:30:00`: local time without a zone, as Ant and Maven Surefire write it and
    /// Jenkins reads it (the Ant JUnit schema allows no zone); whole seconds.
    static func timestamp(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00" }
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(width - digits.count, 0)) + digits
        }
        return "\(padded(parts.tm_year + 1900, 4))-\(padded(parts.tm_mon + 1, 2))-\(padded(parts.tm_mday, 2))"
            + "T\(padded(parts.tm_hour, 2)):\(padded(parts.tm_min, 2)):\(padded(parts.tm_sec, 2))"
    }

    /// The machine's name, as `hostname` prints it; `localhost` if it has none.
    static func hostname() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0, name[0] != 0 else { return "localhost" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
