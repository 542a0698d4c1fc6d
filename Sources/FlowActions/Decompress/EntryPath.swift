/// An archive entry's name as flowrun will write it: relative, without `.` or `..`, stripped.
///
/// Checked here, before anything is written, rather than left to libarchive's flags alone,
/// so that the error names the entry.
package enum EntryPath {
    package enum Verdict: Equatable {
        /// Components below `to`.
        case inside([String])
        /// Stripped away entirely by `strip_components`: not extracted, as tar does.
        case stripped
        case refused(String)
    }

    /// `zip`: a zip written on Windows separates with backslashes, which must not hide a `..`.
    package static func resolve(_ name: String, strip: Int, zip: Bool) -> Verdict {
        let text = zip ? name.replacingOccurrences(of: "\\", with: "/") : name
        if text.hasPrefix("/") { return .refused("has an absolute path") }
        if zip, let drive = text.first, drive.isLetter, text.dropFirst().first == ":" { return .refused("has an absolute path") }
        var parts: [String] = []
        for part in text.split(separator: "/", omittingEmptySubsequences: true) {
            if part == ".." { return .refused("has a '..' component") }
            if part != "." { parts.append(String(part)) }
        }
        if parts.isEmpty { return strip > 0 ? .stripped : .inside([]) }
        guard parts.count > strip else { return .stripped }
        return .inside(Array(parts.dropFirst(strip)))
    }

    /// Whether a symlink at `components` pointing at `target` stays below the root, read as
    /// text: an absolute target, or one whose `..` climbs above the root, leaves it.
    /// (`SymlinkContainment` checks the finished tree, where other links are followed.)
    package static func symlinkStaysInside(at components: [String], target: String) -> Bool {
        if target.hasPrefix("/") { return false }
        var depth = components.count - 1
        for part in target.split(separator: "/", omittingEmptySubsequences: true) {
            if part == ".." {
                depth -= 1
                if depth < 0 { return false }
            } else if part != "." {
                depth += 1
            }
        }
        return true
    }
}
