import FlowModel
import Foundation
import Glibc

/// Where a write through a symbolic link lands, as `tee` and `curl -o` write through one: the
/// file at the end of the chain of links, also when that file does not exist yet (a dangling
/// link, whose target the write creates).
package enum LinkTarget {
    /// The kernel's own bound on the links followed in one path (`ELOOP` past it).
    static let maximumLinks = 40

    /// The path at the end of the links starting at `path`; `path` itself when it is no link
    /// (or cannot be read). Nil for a chain of more than 40 links, a loop among them included.
    package static func end(of path: String) -> String? {
        var current = path
        for _ in 0...maximumLinks {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            let folder = current.pathFolder
            current = target.isAbsolutePath || folder.isEmpty ? target : (folder == "/" ? "/" : folder + "/") + target
        }
        return nil
    }
}
