/// A duration as written in a workflow file (`500ms`, `30s`, `5m`, `1h30m`, or integer seconds).
package struct TimeSpan: Hashable, Sendable, Comparable, CustomStringConvertible {
    package var milliseconds: Int64

    package init(milliseconds: Int64) { self.milliseconds = milliseconds }
    package static func seconds(_ seconds: Int64) -> Self { Self(milliseconds: seconds * 1000) }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// Parses `1h30m`, `500ms`, `2.5s`, or a bare integer number of seconds; nil if malformed.
    package init?(parsing text: String) {
        if let seconds = Int64(text), seconds >= 0, seconds <= Self.maxSeconds {
            self.init(milliseconds: seconds * 1000)
            return
        }
        var total = 0.0
        var rest = Substring(text)
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isASCII && $0.isLetter }
            guard let scale = Self.unitMilliseconds[String(unit)] else { return nil }
            rest = rest.dropFirst(unit.count)
            total += value * scale
        }
        guard total <= Double(Self.maxSeconds) * 1000 else { return nil }
        self.init(milliseconds: Int64(total.rounded()))
    }

    /// The shortest spelling that parses back to the same value.
    package var description: String {
        var ms = milliseconds
        if ms == 0 { return "0s" }
        var parts = ""
        for (unit, size) in [("h", Int64(3_600_000)), ("m", 60_000), ("s", 1000), ("ms", 1)] where ms >= size {
            parts += "\(ms / size)\(unit)"
            ms %= size
        }
        return parts
    }

    /// About 31 years: large enough for any timeout, small enough to never overflow.
    static let maxSeconds: Int64 = 1_000_000_000
    static let unitMilliseconds: [String: Double] = ["ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000]
}
