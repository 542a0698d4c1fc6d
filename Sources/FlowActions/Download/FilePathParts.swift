import Foundation

/// A file's folder and name, as `URL(fileURLWithPath:)` splits its path, without what `URL`
/// costs each download (a `stat` of the path, then parsing it, several times a file): an
/// absolute path whose last name is a plain one is split at its last slash; any other goes
/// through `URL`, as before.
enum FilePathParts {
    static func split(_ path: String) -> (folder: String, name: String) {
        // On the UTF-8 bytes: a slash is one byte, and `Character`s would be grapheme breaking.
        if path.utf8.first == UInt8(ascii: "/"), path.utf8.last != UInt8(ascii: "/"), let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) {
            let name = String(path[path.utf8.index(after: slash)...])
            if name != "." && name != ".." {
                let folder = String(path[..<slash])
                return (folder.isEmpty ? "/" : folder, name)
            }
        }
        let url = URL(fileURLWithPath: path)
        return (url.deletingLastPathComponent().path, url.lastPathComponent)
    }

    static func folder(of path: String) -> String { split(path).folder }
}
