import Glibc

/// Making and flushing folders.
package enum Folders {
    /// `mkdir -p`: each missing folder made with `access`'s mode (masked by the umask flowrun
    /// started with).
    /// An existing folder of `owner` access that others can read is narrowed to 0700: state
    /// made by an older flowrun. Only `path` itself: the folders above it are the user's (a
    /// project's folder, `~/.cache`), never narrowed.
    package static func make(_ path: String, access: FileAccess) throws(FileError) {
        try make(path, access: access, narrowing: true)
    }

    private static func make(_ path: String, access: FileAccess, narrowing: Bool) throws(FileError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw FileError("create folder", path, code: ENOTDIR) }
            if narrowing, access == .owner, info.st_mode & 0o077 != 0, info.st_uid == geteuid() { chmod(path, 0o700) }
            return
        }
        let parent = AtomicFile.split(path).folder
        if parent != path { try make(parent, access: access, narrowing: false) }
        guard mkdir(path, access.folderMode) == 0 || errno == EEXIST else { throw FileError("create folder", path) }
    }

    /// fsync of a folder, so that a rename in it survives a crash; best effort, as a file
    /// system that cannot fsync a folder (some network ones) still renamed.
    package static func synchronize(_ path: String) {
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }
}
