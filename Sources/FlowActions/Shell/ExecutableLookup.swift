import FlowModel
import Foundation
import Glibc

/// Finds the program of a task given as a list (`shell: [make, test]`) the way `execvp` would
/// in the child: on the task's own `PATH` (the environment the child gets, `env:` included),
/// in order, an empty or relative folder meaning one under the task's workdir, and
/// `/bin:/usr/bin` when there is no `PATH`. A name with a slash is taken as it is.
///
/// Found paths are remembered for the run, as bash's `hash` does: `posix_spawnp` would search
/// in every child, a failed `execve` per folder of `PATH` before the program's. A remembered
/// path that no longer works is looked up afresh (`forget`). (`posix_spawnp` itself is not
/// used: glibc's searches flowrun's own `PATH`, not the task's.)
///
/// - Warning: `found` is guarded by `lock`.
final class ExecutableLookup: @unchecked Sendable {
    enum Resolution: Equatable {
        case found(String)
        /// `errno` as `execvp` would set it: EACCES if a candidate exists but cannot run.
        case notFound(Int32)
    }

    private struct Key: Hashable {
        var name: String
        var path: String?
        var workdir: String
    }

    static let defaultPath = "/bin:/usr/bin"

    private let lock = NSLock()
    private var found: [Key: String] = [:]
    /// The last lookup that hit: most tasks of a workflow run the same program under the same
    /// PATH and workdir, which compare equal at once where hashing them (PATH is long) costs a
    /// few thousand instructions a spawn.
    private var last: (key: Key, path: String)?

    func resolve(_ name: String, path: String?, workdir: String) -> Resolution {
        // A byte search: Foundation's `contains` on strings goes through CFString, a conversion
        // per task.
        guard !name.utf8.contains(UInt8(ascii: "/")) else { return .found(name) }
        guard !name.isEmpty else { return .notFound(ENOENT) }
        let key = Key(name: name, path: path, workdir: workdir)
        let hit: String? = lock.withLock {
            if let last, last.key == key { return last.path }
            guard let hit = found[key] else { return nil }
            last = (key, hit)
            return hit
        }
        if let hit { return .found(hit) }
        var failure = ENOENT
        // By bytes, as the shell splits PATH: to String, a `:` and a combining mark after it are
        // one Character, no `:`, and the folders on either side were read as one.
        for bytes in (path ?? Self.defaultPath).utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false) {
            let folder = Substring(bytes)
            let base = folder.isEmpty ? workdir : folder.isAbsolutePath ? String(folder) : "\(workdir)/\(folder)"
            let candidate = base.hasSuffix("/") ? "\(base)\(name)" : "\(base)/\(name)"
            switch Self.check(candidate) {
            case 0:
                lock.withLock { found[key] = candidate }
                return .found(candidate)
            case EACCES:
                failure = EACCES
            default:
                continue
            }
        }
        return .notFound(failure)
    }

    /// Drops a remembered path that failed to run, so that the next lookup searches again.
    func forget(_ name: String, path: String?, workdir: String) {
        let key = Key(name: name, path: path, workdir: workdir)
        lock.withLock {
            found.removeValue(forKey: key)
            if last?.key == key { last = nil }
        }
    }

    /// 0 for an executable regular file, EACCES for one that exists but cannot run, else ENOENT.
    private static func check(_ candidate: String) -> Int32 {
        var info = stat()
        guard stat(candidate, &info) == 0 else { return ENOENT }
        guard info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 else { return EACCES }
        return 0
    }
}
