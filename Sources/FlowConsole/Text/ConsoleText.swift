/// Makes text from tasks (output lines, reasons) safe to put on a console or in a log.
///
/// A task's output is not ours: an escape sequence in it could move the cursor inside the live
/// view, recolour the rest of a CI log, or set a terminal's title. So escape sequences (CSI such
/// as `ESC[31m`, OSC such as `ESC]0;title BEL`, and the other `ESC`-introduced forms, in their
/// 7-bit and C1 spellings) are removed whole, and every other control character except tab
/// is dropped, as are DEL and the C1 controls.
///
/// A carriage return inside a line is what progress meters use to redraw themselves
/// (`10%\r20%\r30%`); a terminal would end up showing the last redraw, so that is what is kept.
///
/// With `keepingColours`, for the live view on a terminal with colour on, SGR sequences (`ESC[`
/// digits, `;` and `:`, then `m`: colours and bold, which cannot move the cursor) are kept, and
/// a reset ends a line that has one, so that a colour the task left on does not bleed into the
/// next line.
package enum ConsoleText {
    /// What to do with `\n` (which output lines never contain, but reasons may).
    package enum Newlines {
        /// Each becomes a space: one line of text.
        case space
        /// Kept, for a consumer that encodes them (GitHub's `%0A`).
        case keep
    }

    package static func sanitized(_ text: String, newlines: Newlines = .space, keepingColours: Bool = false) -> String {
        guard needsSanitizing(text) else { return text }
        var keptColour = false
        var result: [Unicode.Scalar] = []
        result.reserveCapacity(text.utf8.count)
        var lineStart = 0  // where the current line began in `result`, for `\r`
        var scalars = text.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            switch scalar.value {
            case 0x09:
                result.append(scalar)
            case 0x0A:
                result.append(newlines == .space ? " " : scalar)
                lineStart = result.count
            case 0x0D:
                // `\r\n` and a trailing `\r` end a line; any other `\r` starts it over.
                if scalars.first == "\n" || scalars.isEmpty { continue }
                result.removeSubrange(lineStart...)
            case 0x1B where keepingColours:
                if let sgr = selectGraphicRendition(&scalars) {
                    result += sgr
                    keptColour = true
                } else {
                    skipEscapeSequence(&scalars)
                }
            case 0x1B:
                skipEscapeSequence(&scalars)
            case 0x9B:
                skipControlSequence(&scalars)
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F:
                skipControlString(&scalars)
            case 0x00..<0x20, 0x7F..<0xA0:
                continue
            default:
                result.append(scalar)
            }
        }
        var string = ""
        string.unicodeScalars.append(contentsOf: result)
        if keptColour { string += "\u{1B}[0m" }
        return string
    }

    /// After `ESC`: an SGR sequence (`ESC` included), taken from `scalars`; nil, taking
    /// nothing, for any other sequence.
    private static func selectGraphicRendition(_ scalars: inout Substring.UnicodeScalarView) -> [Unicode.Scalar]? {
        guard scalars.first == "[" else { return nil }
        var sequence: [Unicode.Scalar] = ["\u{1B}", "["]
        for scalar in scalars.dropFirst() {
            switch scalar {
            case "0"..."9", ";", ":":
                sequence.append(scalar)
            case "m":
                sequence.append(scalar)
                scalars.removeFirst(sequence.count - 1)
                return sequence
            default:
                return nil
            }
        }
        return nil
    }

    /// The fast path: most lines are plain text, checked byte by byte without copying.
    private static func needsSanitizing(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            var previous: UInt8 = 0
            for byte in utf8 {
                // U+0080...U+009F are 0xC2 0x80...0x9F in UTF-8.
                if byte < 0x20 && byte != 0x09 || byte == 0x7F || previous == 0xC2 && byte < 0xA0 {
                    return true
                }
                previous = byte
            }
            return false
        }
    }

    /// After `ESC`: the rest of the sequence it introduces.
    private static func skipEscapeSequence(_ scalars: inout Substring.UnicodeScalarView) {
        guard let next = scalars.popFirst() else { return }
        switch next {
        case "[": skipControlSequence(&scalars)
        case "]", "P", "X", "^", "_": skipControlString(&scalars)
        default:
            // Two-character forms (`ESC 7`, `ESC c`), and `ESC ( B` style with intermediates.
            var intermediate = next
            while (0x20...0x2F).contains(intermediate.value), let following = scalars.popFirst() {
                intermediate = following
            }
        }
    }

    /// A CSI's parameters and intermediates, then its final byte (`@` to `~`).
    private static func skipControlSequence(_ scalars: inout Substring.UnicodeScalarView) {
        while let scalar = scalars.first {
            // A character that can be neither is not part of the sequence: it is left as text.
            guard (0x20...0x7E).contains(scalar.value) else { return }
            scalars.removeFirst()
            if scalar.value >= 0x40 { return }
        }
    }

    /// An OSC, DCS or similar string, up to its terminator: BEL, `ESC \` or ST (U+009C).
    private static func skipControlString(_ scalars: inout Substring.UnicodeScalarView) {
        while let scalar = scalars.popFirst() {
            switch scalar.value {
            case 0x07, 0x9C: return
            case 0x1B where scalars.first == "\\":
                scalars.removeFirst()
                return
            default: continue
            }
        }
    }
}
