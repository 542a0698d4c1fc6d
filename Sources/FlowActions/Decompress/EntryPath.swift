/// An archive entry's name as flowrun will write it: relative, without `.` or `..`, stripped.
///
/// Checked here, before anything is written, rather than left to libarchive's flags alone,
/// so that the error names the entry. Names are bytes, as the archive has them (`BytePath`).
package enum EntryPath {
    package enum Verdict: Equatable {
        /// Components below `to`.
        case inside([[UInt8]])
        /// Stripped away entirely by `strip_components`: not extracted, as tar does.
        case stripped
        case refused(String)
    }

    private static let slash = UInt8(ascii: "/")

    /// `zip`: a zip may name a Windows drive. Its backslashes are libarchive's to turn into
    /// slashes (it does for names in a known encoding); one it keeps is a character of the name,
    /// as for bsdtar: in Shift-JIS it is half of a letter (`ソ` is 0x83 0x5C).
    package static func resolve(_ name: [UInt8], strip: Int, zip: Bool) -> Verdict {
        let text = name
        if text.first == slash { return .refused("has an absolute path") }
        if zip, text.count >= 2, isASCIILetter(text[0]), text[1] == UInt8(ascii: ":") { return .refused("has an absolute path") }
        // A `.` counts toward `strip` as in GNU tar and bsdtar (`./top/a` at 1 is `top/a`), and
        // is dropped from what is kept.
        var parts: [[UInt8]] = []
        var toStrip = strip
        for part in text.split(separator: slash) {
            if part.elementsEqual("..".utf8) { return .refused("has a '..' component") }
            if toStrip > 0 {
                toStrip -= 1
            } else if !part.elementsEqual(".".utf8) {
                parts.append(Array(part))
            }
        }
        if toStrip > 0 || (strip > 0 && parts.isEmpty) { return .stripped }
        return .inside(parts)
    }

    /// Whether a symlink at `components` pointing at `target` stays below the root, read as
    /// text: an absolute target, or one whose `..` climbs above the root, leaves it.
    /// (`SymlinkContainment` checks the finished tree, where other links are followed.)
    package static func symlinkStaysInside(at components: [[UInt8]], target: [UInt8]) -> Bool {
        if target.first == slash { return false }
        var depth = components.count - 1
        for part in target.split(separator: slash) {
            if part.elementsEqual("..".utf8) {
                depth -= 1
                if depth < 0 { return false }
            } else if !part.elementsEqual(".".utf8) {
                depth += 1
            }
        }
        return true
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}
