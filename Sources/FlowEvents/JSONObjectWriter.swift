/// Appends one flat JSON object, field by field, to a byte buffer.
///
/// Hand-written because `JSONEncoder` allocates a container tree per value, and the event
/// stream encodes an object per event of runs of 100,000 tasks. Keys are static strings of
/// ours and need no escaping; string values are escaped by `appendString`.
package struct JSONObjectWriter {
    private var bytes: [UInt8] = []
    private var needsComma = false

    /// Starts an object in the storage of `buffer`, which is emptied but keeps its capacity,
    /// so that a sink encodes event after event without allocating.
    package init(reusing buffer: inout [UInt8]) {
        swap(&bytes, &buffer)  // takes the storage without a copy-on-write copy
        bytes.removeAll(keepingCapacity: true)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Closes the object and hands the bytes back, followed by a newline.
    package mutating func endLine(into buffer: inout [UInt8]) {
        end()
        bytes.append(UInt8(ascii: "\n"))
        swap(&bytes, &buffer)
    }

    /// Closes the object opened by `beginObject`.
    package mutating func end() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func beginObject(_ key: StaticString) {
        appendKey(key)
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    package mutating func field(_ key: StaticString, _ value: String) {
        appendKey(key)
        Self.appendString(value, to: &bytes)
    }

    package mutating func field(_ key: StaticString, _ value: Int) {
        field(key, Int64(value))
    }

    package mutating func field(_ key: StaticString, _ value: Int64) {
        appendKey(key)
        Self.appendInteger(value, to: &bytes)
    }

    package mutating func field(_ key: StaticString, _ values: [String]) {
        appendKey(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            Self.appendString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    package mutating func field(_ key: StaticString, _ value: Bool) {
        appendKey(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// The value, or `null` when it is unknown: the key is always present.
    package mutating func field(_ key: StaticString, _ value: Int64?) {
        guard let value else {
            appendKey(key)
            bytes.append(contentsOf: "null".utf8)
            return
        }
        field(key, value)
    }

    /// A time as an RFC 3339 string.
    package mutating func timeField(_ key: StaticString, milliseconds: Int64) {
        appendKey(key)
        bytes.append(UInt8(ascii: "\""))
        EventTime.append(milliseconds: milliseconds, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A time as an RFC 3339 string, from the text of the last time when in the same second.
    package mutating func timeField(_ key: StaticString, milliseconds: Int64, memo: inout EventTime.Memo) {
        appendKey(key)
        bytes.append(UInt8(ascii: "\""))
        EventTime.append(milliseconds: milliseconds, to: &bytes, memo: &memo)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `,"key":` in one append, not five: each append of a byte checks the buffer's uniqueness
    /// and room, and a task's events write sixteen keys (issue 23's graph of small tasks).
    private mutating func appendKey(_ key: StaticString) {
        let comma = needsComma
        needsComma = true
        key.withUTF8Buffer { name in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count + 4) { text in
                var end = 0
                if comma {
                    text[0] = UInt8(ascii: ",")
                    end = 1
                }
                text[end] = UInt8(ascii: "\"")
                end += 1
                _ = UnsafeMutableBufferPointer(rebasing: text[end..<(end + name.count)]).initialize(from: name)
                end += name.count
                text[end] = UInt8(ascii: "\"")
                text[end + 1] = UInt8(ascii: ":")
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[..<(end + 2)]))
            }
        }
    }

    package static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        DecimalDigits.withBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    /// Appends `value` as a JSON string: `"` and `\` escaped, `\n` `\r` `\t` in short form, every
    /// other C0 control, DEL and C1 control as `\u00XX`; everything else passes through as UTF-8.
    ///
    /// JSON requires only C0 to be escaped; DEL and C1 are escaped too so that `cat`-ing an
    /// events file can never drive a terminal (C1 `U+009B` is a CSI on some terminals).
    package static func appendString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                let escaped: UInt8  // the byte or code point to escape
                let width: Int
                if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0x7F {
                    // U+0080...U+009F are 0xC2 0x80...0x9F in UTF-8.
                    guard byte == 0xC2, index + 1 < utf8.count, (0x80...0x9F).contains(utf8[index + 1]) else {
                        index += 1
                        continue
                    }
                    escaped = utf8[index + 1]
                    width = 2
                } else {
                    escaped = byte
                    width = 1
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                appendEscape(escaped, to: &bytes)
                index += width
                start = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ codePoint: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch codePoint {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(codePoint)
        case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(UInt8(ascii: "u"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "0"))
            bytes.append(hexDigit(codePoint >> 4))
            bytes.append(hexDigit(codePoint & 0xF))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
