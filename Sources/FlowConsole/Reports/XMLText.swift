/// Escapes text for XML 1.0, in attribute values and in element content.
///
/// `&`, `<`, `>`, `"` and `'` become entities; in an attribute, tab and newline become
/// character references too, because a parser turns them into spaces otherwise. Characters
/// XML 1.0 cannot hold at all (C0 controls other than tab and newline, U+FFFE, U+FFFF) are
/// dropped, with terminal escape sequences, through `ConsoleText`; a carriage return is
/// resolved as a terminal would show it.
enum XMLText {
    static func escaped(_ text: String, isAttribute: Bool = true) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in ConsoleText.sanitized(text, newlines: .keep).unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\n" where isAttribute: escaped += "&#10;"
            case "\t" where isAttribute: escaped += "&#9;"
            case "\u{FFFE}", "\u{FFFF}": continue
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
