/// Lexical path arithmetic: never touches the disk, so a dry run cannot either.
package enum PathResolution {
    /// `path` made absolute against `base` (itself absolute), with `.` and `..` folded away.
    package static func resolve(_ path: String, against base: String) -> String {
        normalize(path.hasPrefix("/") ? path : base + "/" + path)
    }

    package static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Whether the normalized absolute `path` lies strictly below the folder `folder` (also
    /// normalized): lexically, as tar names entries.
    package static func isInside(_ path: String, folder: String) -> Bool {
        let (path, folder) = (path.utf8, folder.utf8)
        if folder.elementsEqual("/".utf8) { return path.count > 1 }
        return path.starts(with: folder) && path.dropFirst(folder.count).first == UInt8(ascii: "/")
    }
}
