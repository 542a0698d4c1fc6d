import Foundation

/// A file's folder and name, as `URL(fileURLWithPath:)` splits its path, without what `URL`
/// costs each download (a `stat` of the path, then parsing it, several times a file): an
/// absolute path whose last name is a plain one is split at its last slash; any other goes
/// through `URL`, as before.
enum FilePathParts {
    static func split(_ path: String) -> (folder: String, name: String) {
        if path.hasPrefix("/"), !path.hasSuffix("/"), let slash = path.lastIndex(of: "/") {
            let name = String(path[path.index(after: slash)...])
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
