import Foundation

/// Checks, on the finished tree, that a symlink resolves below the root, following the links it
/// passes through: read as text, `r -> .` and `s -> r/..` both stay inside, yet `s` leads out.
enum SymlinkContainment {
    private static let slash = UInt8(ascii: "/")

    /// `link` is the symlink's components below `root`.
    static func staysInside(root: BytePath, link: [[UInt8]]) -> Bool {
        guard let target = FileTree.readLink(root.appending(link)) else { return true }
        var current = Array(link.dropLast())
        var pending = Array(components(target).reversed())
        if target.first == slash { return false }
        var hops = 0
        while let part = pending.popLast() {
            if part.elementsEqual(".".utf8) { continue }
            if part.elementsEqual("..".utf8) {
                if current.isEmpty { return false }
                current.removeLast()
                continue
            }
            let path = root.appending(current + [part])
            if let info = FileTree.status(path), info.st_mode & S_IFMT == S_IFLNK, let next = FileTree.readLink(path) {
                hops += 1
                if hops > 40 || next.first == slash { return false }
                pending.append(contentsOf: components(next).reversed())
            } else {
                current.append(part)
            }
        }
        return true
    }

    private static func components(_ target: [UInt8]) -> [[UInt8]] {
        target.split(separator: slash).map(Array.init)
    }
}

extension FileTree {
    static func readLink(_ path: String) -> String? {
        readLink(BytePath(path)).map(BytePath.shown)
    }

    static func readLink(_ path: BytePath) -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = path.withCString { readlink($0, &buffer, buffer.count - 1) }
        guard count >= 0 else { return nil }
        return buffer[0..<count].map { UInt8(bitPattern: $0) }
    }
}
