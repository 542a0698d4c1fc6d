import Foundation

/// A Retry-After header value: delay-seconds or an HTTP date (RFC 9110 10.2.3).
enum RetryAfter {
    /// The delay it asks for in milliseconds, counted from `now`; nil when unreadable. A date in
    /// the past asks for no delay.
    static func milliseconds(_ value: String, now: Date = Date()) -> Int64? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(text), seconds >= 0 {
            return seconds > Int64.max / 1000 ? Int64.max : seconds * 1000
        }
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) {
                return max(0, Int64((date.timeIntervalSince(now) * 1000).rounded(.up)))
            }
        }
        return nil
    }

    /// IMF-fixdate, then the obsolete RFC 850 and asctime forms a recipient must accept.
    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]
}
