import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds a command on PATH once per run and remembers it, as bash's `hash` does.
///
/// `posix_spawnp` searches PATH in every child: on a PATH of eight folders, `true` costs six
/// failed `execve` calls before it is found, 2% of the time of a graph of 5,000 `true` tasks
/// (measured with bench/run_bench.py's graphs). Only found paths are remembered, so a command that is
/// missing still fails through `posix_spawnp` with its usual error; a PATH with a relative
/// folder (which would depend on each task's workdir) is never searched here.
///
/// - Warning: `found` is guarded by `lock`.
final class ExecutableLookup: @unchecked Sendable {
    private struct Key: Hashable {
        var name: String
        var path: String
    }

    private let lock = NSLock()
    private var found: [Key: String] = [:]

    /// The absolute path `posix_spawnp` would run for `name` under `path` (the child's PATH),
    /// or nil to let `posix_spawnp` search.
    func resolve(_ name: String, path: String?) -> String? {
        guard !name.isEmpty, !name.contains("/"), let path, !path.isEmpty else { return nil }
        let key = Key(name: name, path: path)
        if let hit = lock.withLock({ found[key] }) { return hit }
        let folders = path.split(separator: ":", omittingEmptySubsequences: false)
        guard folders.allSatisfy({ $0.hasPrefix("/") }) else { return nil }
        for folder in folders {
            let candidate = folder.hasSuffix("/") ? "\(folder)\(name)" : "\(folder)/\(name)"
            if Self.isExecutableFile(candidate) {
                lock.withLock { found[key] = candidate }
                return candidate
            }
        }
        return nil
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }
}
