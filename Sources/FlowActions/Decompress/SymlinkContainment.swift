import Foundation

/// Checks, on the finished tree, that a symlink resolves below the root, following the links it
/// passes through: read as text, `r -> .` and `s -> r/..` both stay inside, yet `s` leads out.
enum SymlinkContainment {
    /// `link` is the symlink's components below `root`.
    static func staysInside(root: String, link: [String]) -> Bool {
        guard let target = FileTree.readLink(root + "/" + link.joined(separator: "/")) else { return true }
        var current = Array(link.dropLast())
        var pending = Array(components(target).reversed())
        if target.hasPrefix("/") { return false }
        var hops = 0
        while let part = pending.popLast() {
            if part == "." { continue }
            if part == ".." {
                if current.isEmpty { return false }
                current.removeLast()
                continue
            }
            let path = root + "/" + (current + [part]).joined(separator: "/")
            if let info = FileTree.status(path), info.st_mode & S_IFMT == S_IFLNK, let next = FileTree.readLink(path) {
                hops += 1
                if hops > 40 || next.hasPrefix("/") { return false }
                pending.append(contentsOf: components(next).reversed())
            } else {
                current.append(part)
            }
        }
        return true
    }

    private static func components(_ text: String) -> [String] {
        text.split(separator: "/").map(String.init)
    }
}

extension FileTree {
    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
