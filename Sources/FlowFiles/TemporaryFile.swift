import Glibc

/// The one way flowrun creates a temporary file: a random hidden name (`TemporaryName`),
/// `O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC`, so that nothing planted there in advance (a file, a
/// symlink) is ever opened or written through, and no task spawned meanwhile inherits it; the
/// mode from `access`, already masked by the umask flowrun started with (`StartupUmask`), so that
/// libarchive's moments of umask 0 on another thread change nothing. It is locked (`OwnerLock`) while open, so that
/// `LeftoverSweep` removes it only once its owner is gone.
package enum TemporaryFile {
    /// Creates `.NAME.flowrun-RANDOM` in `folder` for a file that becomes `name`, open for
    /// reading and writing. Sweeps `folder`'s leftovers first (once per folder and process).
    package static func create(in folder: String, for name: String, access: FileAccess) throws(FileError) -> (descriptor: Int32, path: String) {
        LeftoverSweep.shared.sweepOnce(folder)
        for _ in 0..<100 {
            let path = folder + "/" + TemporaryName.make(for: name)
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, access.fileMode)
            if descriptor < 0 {
                if errno == EEXIST || errno == EINTR { continue }
                throw FileError("create a temporary file in", folder)
            }
            if OwnerLock.claim(descriptor, at: path) { return (descriptor, path) }
            close(descriptor)
        }
        throw FileError("create a temporary file in", folder, code: EEXIST)
    }

    /// A file with no name, only the descriptor (0600): for scratch space that must vanish when
    /// it is closed or flowrun dies. `O_TMPFILE` where the file system has it; elsewhere a
    /// temporary file unlinked at once.
    package static func anonymous(in folder: String) throws(FileError) -> Int32 {
        let descriptor = open(folder, O_RDWR | Self.tmpfile | O_EXCL | O_CLOEXEC, FileAccess.owner.fileMode)
        if descriptor >= 0 { return descriptor }
        guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else {
            throw FileError("create a temporary file in", folder)
        }
        let (named, path) = try create(in: folder, for: "flowrun-spill", access: .owner)
        unlink(path)
        return named
    }

    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), a macro Swift does not import.
    private static let tmpfile: Int32 = 0o20_000_000 | O_DIRECTORY
}
