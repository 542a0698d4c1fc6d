import Glibc

/// The lock that marks a temporary file or folder as in use: an exclusive `flock` on its own
/// descriptor, held while the descriptor is open. The kernel drops it when its holder exits,
/// even by SIGKILL, so a later flowrun can tell a leftover (lock free) from one that a live
/// flowrun is still writing (lock held), across processes and PID namespaces alike.
package enum OwnerLock {
    /// Locks `descriptor`, just opened at `path`, and checks that `path` is still it: a sweep
    /// that took the lock first has removed it, and the caller then makes another.
    static func claim(_ descriptor: Int32, at path: String) -> Bool {
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { return false }
        }
        return isStill(descriptor, at: path)
    }

    /// `claim` without waiting: false at once while another holder (a live flowrun) has it.
    package static func claimIfFree(_ descriptor: Int32, at path: String) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR else { return false }
        }
        return isStill(descriptor, at: path)
    }

    /// Whether `path` (not followed) is the file or folder open as `descriptor`.
    static func isStill(_ descriptor: Int32, at path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }
}
