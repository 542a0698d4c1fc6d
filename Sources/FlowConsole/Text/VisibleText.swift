/// Shows the control characters of text quoted from a workflow file (or a command line) as
/// escapes, so that a message quoting it stays one line of plain text.
///
/// A value holds whatever its YAML escapes write: `\e[2J` would clear the terminal of whoever
/// reads the message, and a newline followed by `::error file=...` would start a line that a
/// GitHub Actions runner takes as a command. `ConsoleText` drops such characters from task
/// output; a diagnostic must lose nothing, so each is written as YAML's double-quoted escapes
/// write it (`\0`, `\t`, `\n`, `\r`, else `\xHH`), which can be pasted back into the file: the C0
/// controls, DEL, the C1 controls, and the line and paragraph separators U+2028 and U+2029.
package enum VisibleText {
    package static func escaped(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00: result += "\\0"
            case 0x09: result += "\\t"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x00..<0x20, 0x7F..<0xA0: result += "\\x" + hex(scalar.value, digits: 2)
            case 0x2028, 0x2029: result += "\\u" + hex(scalar.value, digits: 4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The fast path: nearly every message is plain text, checked byte by byte.
    private static func needsEscaping(_ text: String) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in text.utf8 {
            // U+0080...U+009F are 0xC2 0x80...0x9F in UTF-8; U+2028 and U+2029 are 0xE2 0x80 0xA8, 0xA9.
            if byte < 0x20 || byte == 0x7F || previous.1 == 0xC2 && byte < 0xA0
                || previous == (0xE2, 0x80) && (byte == 0xA8 || byte == 0xA9)
            {
                return true
            }
            previous = (previous.1, byte)
        }
        return false
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
