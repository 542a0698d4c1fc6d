import Glibc

/// A temporary folder made as `TemporaryFile` makes files: `.NAME.flowrun-RANDOM` beside what
/// it becomes, made by `mkdir` (never an existing folder or a symlink), its mode from `access`
/// (masked by the umask flowrun started with), and locked (`OwnerLock`) for as long as the value lives.
///
/// Not thread-safe: one owner uses and closes it.
package final class TemporaryFolder {
    package let path: String
    private var descriptor: Int32

    /// Creates it in `folder` for a folder that becomes `name`, after sweeping `folder`'s
    /// leftovers (once per folder and process).
    package init(in folder: String, for name: String, access: FileAccess) throws(FileError) {
        LeftoverSweep.shared.sweepOnce(folder)
        for _ in 0..<100 {
            let path = folder + "/" + TemporaryName.make(for: name)
            guard mkdir(path, access.folderMode) == 0 else {
                if errno == EEXIST || errno == EINTR { continue }
                throw FileError("create a temporary folder in", folder)
            }
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0, OwnerLock.claim(descriptor, at: path) {
                self.path = path
                self.descriptor = descriptor
                return
            }
            if descriptor >= 0 { close(descriptor) }
        }
        throw FileError("create a temporary folder in", folder, code: EEXIST)
    }

    /// Drops the lock (a folder renamed into place is no longer temporary).
    package func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
