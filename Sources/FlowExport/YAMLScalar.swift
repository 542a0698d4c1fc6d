/// Quoting of YAML scalars: a string is written plain only when every YAML reader (1.1 and
/// 1.2, GitHub's and Kubernetes') reads it back as that same string.
package enum YAMLScalar {
    /// Words that YAML 1.1 or 1.2 reads as a boolean or null, in any case.
    private static let keywords: Set<String> = ["y", "yes", "n", "no", "true", "false", "on", "off", "null", "~"]

    /// `text` plain if that is safe, else double-quoted.
    package static func quoted(_ text: String, inFlow: Bool = false) -> String {
        isPlainSafe(text, inFlow: inFlow) ? text : doubleQuoted(text)
    }

    /// Plain only for a letter, `_` or `/` first, then letters, digits and `_./-` (and `:`, `=`,
    /// `@`, `+`, `$`, `(`, `)`, `'`, `|`, `&`, `!`, `*`, `<`, `>`, `%`, `#`, `;` and space, not in a
    /// flow and never as `: `, ` #` or at the end): never a number, a keyword, an indicator or a
    /// comment. Scanned as bytes: this runs for every value of a 20,000-task export.
    static func isPlainSafe(_ text: String, inFlow: Bool = false) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, let last = bytes.last else { return false }
        guard isLetter(first) || first == UInt8(ascii: "_") || first == UInt8(ascii: "/") else { return false }
        guard last != UInt8(ascii: " "), last != UInt8(ascii: ":") else { return false }
        if bytes.count <= 5, keywords.contains(text.lowercased()) { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "-"):
                break
            case UInt8(ascii: " ") where previous == UInt8(ascii: ":"):
                return false
            case UInt8(ascii: "#") where previous == UInt8(ascii: " "):
                return false
            case UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: "@"), UInt8(ascii: "+"), UInt8(ascii: "$"), UInt8(ascii: " "),
                UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "'"), UInt8(ascii: "|"), UInt8(ascii: "&"), UInt8(ascii: "!"),
                UInt8(ascii: "*"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "%"), UInt8(ascii: "#"), UInt8(ascii: ";"):
                if inFlow { return false }
            default:
                return false
            }
            previous = byte
        }
        return true
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// `"..."` with `\`, `"` and every character a reader could mistake escaped.
    package static func doubleQuoted(_ text: String) -> String {
        "\"" + escaped(text, quote: true) + "\""
    }

    /// A comment's text on one line: control characters escaped as in a double-quoted string.
    static func comment(_ text: String) -> String {
        escaped(text, quote: false)
    }

    private static func escaped(_ text: String, quote: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\" where quote: out += "\\\\"
            case "\"" where quote: out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            case "\u{85}": out += "\\N"
            case "\u{A0}" where quote: out += "\\_"
            case "\u{2028}": out += "\\L"
            case "\u{2029}": out += "\\P"
            case "\u{FEFF}": out += "\\uFEFF"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\x" + (hex.count < 2 ? "0" : "") + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// The lines of a literal block (`|-`) indented by `indent`, or nil when the text cannot be
    /// one: a control character, a line break YAML counts that `\n` does not, a final newline
    /// (`|-` strips it), or a first line starting with a space (it would set the indentation).
    static func literalBlock(_ text: String, indent: Int) -> String? {
        guard !text.isEmpty, !text.hasSuffix("\n"), !text.hasPrefix(" "), !text.hasPrefix("\t") else { return nil }
        for scalar in text.unicodeScalars {
            if scalar == "\n" || scalar == "\t" { continue }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}" || scalar == "\u{FEFF}" {
                return nil
            }
        }
        let pad = String(repeating: " ", count: indent)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "\n" : pad + $0 + "\n" }.joined()
    }
}
