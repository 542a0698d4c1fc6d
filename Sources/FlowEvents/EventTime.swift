/// Formats event times as RFC 3339 UTC with milliseconds, such as `2026-11-23T09:30:01.123Z`.
///
/// Written by hand with integer arithmetic (Howard Hinnant's `civil_from_days`) because the
/// event stream formats one time per event, and a `DateFormatter` or `ISO8601DateFormatter`
/// costs microseconds and allocations per call; this costs a few dozen integer operations.
package enum EventTime {
    /// The times this formatter represents: years 0000 to 9999. Others are clamped.
    package static let range: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    package static func string(milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(milliseconds: milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 24 bytes of the time, without quotes.
    ///
    /// Written into a buffer on the stack and appended at once: every event carries a time, and
    /// an `append` per digit (a capacity check each) would be much of the cost of encoding it.
    package static func append(milliseconds: Int64, to bytes: inout [UInt8]) {
        let clamped = min(max(milliseconds, range.lowerBound), range.upperBound)
        // Floor division, so that times before 1970 fall on the right day.
        let millisecondsPerDay: Int64 = 86_400_000
        var days = clamped / millisecondsPerDay
        var ofDay = clamped % millisecondsPerDay
        if ofDay < 0 {
            days -= 1
            ofDay += millisecondsPerDay
        }
        let date = civilDate(daysSince1970: days)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            // Each field ends at `end`, its digits written from the last.
            func put(_ value: Int64, endingAt end: Int, count: Int, then separator: UInt8) {
                var rest = value
                for index in stride(from: end - 1, through: end - count, by: -1) {
                    text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                text[end] = separator
            }
            put(date.year, endingAt: 4, count: 4, then: UInt8(ascii: "-"))
            put(date.month, endingAt: 7, count: 2, then: UInt8(ascii: "-"))
            put(date.day, endingAt: 10, count: 2, then: UInt8(ascii: "T"))
            put(ofDay / 3_600_000, endingAt: 13, count: 2, then: UInt8(ascii: ":"))
            put(ofDay / 60_000 % 60, endingAt: 16, count: 2, then: UInt8(ascii: ":"))
            put(ofDay / 1000 % 60, endingAt: 19, count: 2, then: UInt8(ascii: "."))
            put(ofDay % 1000, endingAt: 23, count: 3, then: UInt8(ascii: "Z"))
            bytes.append(contentsOf: UnsafeBufferPointer(text))
        }
    }

    /// The last time formatted, for events of the same second: the stream stamps thousands of
    /// events a second, whose text differs only in the milliseconds.
    package struct Memo: Sendable {
        fileprivate var second = Int64.min
        /// The 24 bytes of the last time appended.
        fileprivate var text: [UInt8] = []

        package init() {}
    }

    /// As `append(milliseconds:to:)`; a time in the second of the last one `memo` saw only has its
    /// milliseconds written.
    package static func append(milliseconds: Int64, to bytes: inout [UInt8], memo: inout Memo) {
        let clamped = min(max(milliseconds, range.lowerBound), range.upperBound)
        var second = clamped / 1000
        if clamped % 1000 < 0 { second -= 1 }  // floor, as the date's own division
        if second != memo.second || memo.text.count != 24 {
            memo.text.removeAll(keepingCapacity: true)
            append(milliseconds: clamped, to: &memo.text)
            memo.second = second
        } else {
            let ofSecond = clamped - second * 1000
            memo.text[20] = UInt8(ascii: "0") + UInt8(ofSecond / 100)
            memo.text[21] = UInt8(ascii: "0") + UInt8(ofSecond / 10 % 10)
            memo.text[22] = UInt8(ascii: "0") + UInt8(ofSecond % 10)
        }
        bytes.append(contentsOf: memo.text)
    }

    /// The proleptic Gregorian date of a day number (0 is 1970-01-01).
    /// See https://howardhinnant.github.io/date_algorithms.html#civil_from_days
    package static func civilDate(daysSince1970: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSince1970 + 719_468  // days since 0000-03-01
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097  // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365, from March 1
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0...11, March is 0
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

}
