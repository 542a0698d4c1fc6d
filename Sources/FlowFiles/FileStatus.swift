import Glibc

/// What `stat(2)` says of a file that must be unchanged for a digest taken earlier to stand: its
/// size, mtime, ctime and inode. The ctime is there because a program can set the mtime back
/// (`cp -p`, `touch -r`, an archive's extraction) but not the ctime: any write or such reset
/// moves it. An action that hashed a file as it wrote it keys the digest by it too
/// (`StreamedDigests`).
package struct FileStatus: Sendable, Hashable {
    package var size: Int64
    package var modifiedNanoseconds: Int64
    package var changedNanoseconds: Int64
    package var inode: UInt64

    package init(size: Int64, modifiedNanoseconds: Int64, changedNanoseconds: Int64, inode: UInt64) {
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedNanoseconds = changedNanoseconds
        self.inode = inode
    }

    /// How far a file's timestamps can trail the moment it changed: a file system stamps with a
    /// coarse clock (a kernel tick; whole seconds on ext3, two seconds on FAT), so a file changed
    /// again within that step can keep the same status. Two seconds covers all of them.
    package static let granularityNanoseconds: Int64 = 2_000_000_000

    /// Whether a change right after `moment` could leave the file with this status: its mtime or
    /// ctime is within `granularityNanoseconds` of `moment` (or after it). A digest taken then is
    /// not trusted on the status alone later (git's "racy" rule), and the contents are hashed
    /// again.
    package func isRacy(at moment: Int64) -> Bool {
        max(modifiedNanoseconds, changedNanoseconds) >= moment - Self.granularityNanoseconds
    }

    package init(_ info: stat) {
        self.init(
            size: Int64(info.st_size),
            modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            changedNanoseconds: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec),
            inode: UInt64(info.st_ino))
    }

    /// The status of the regular file at `path` now (symlinks followed); nil otherwise.
    /// A path in the working folder is looked up from there (`WorkingFolder`).
    package static func of(path: String) -> FileStatus? {
        var info = stat()
        guard WorkingFolder.withLookupPath(path, { stat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileStatus(info)
    }

    /// The status of the open regular file `descriptor`; nil otherwise.
    package static func of(descriptor: Int32) -> FileStatus? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileStatus(info)
    }
}
