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

    /// How far a file's timestamps can trail the moment it changed, on a file system that keeps
    /// them to the nanosecond (ext4, XFS, btrfs, tmpfs): Linux stamps files with its coarse clock,
    /// which the moments here are read from too (`CLOCK_REALTIME_COARSE`), so a change after a
    /// moment is stamped at or after it. The margin covers moments read from the fine clock,
    /// one kernel tick (1-10 ms) ahead, as the state kept them before, and a tick that came late
    /// (7.6 ms behind `CLOCK_REALTIME` measured here, HZ 250, under load 13).
    package static let fineGranularityNanoseconds: Int64 = 20_000_000

    /// The step of the clock that stamped this status, told from the stamps themselves: a file
    /// system that keeps whole seconds (ext3, HFS+) or two (FAT) leaves the nanoseconds zero, one
    /// that keeps hundredths (exFAT) leaves them a multiple of 10 ms. Twice the largest power of
    /// ten that divides both the mtime's and the ctime's nanoseconds (two seconds for whole
    /// seconds, as FAT's step is two), and at least `fineGranularityNanoseconds`.
    package var granularityNanoseconds: Int64 {
        let modified = Self.fraction(modifiedNanoseconds)
        let changed = Self.fraction(changedNanoseconds)
        var step: Int64 = 1
        while step < 1_000_000_000, modified % (step * 10) == 0, changed % (step * 10) == 0 { step *= 10 }
        return max(2 * step, Self.fineGranularityNanoseconds)
    }

    /// The nanoseconds within the second.
    private static func fraction(_ nanoseconds: Int64) -> Int64 {
        let fraction = nanoseconds % 1_000_000_000
        return fraction < 0 ? fraction + 1_000_000_000 : fraction
    }

    /// The last moment at which a change could still leave the file with this status: its mtime
    /// or ctime (whichever is later) plus its clock's step (`granularityNanoseconds`).
    package var racyUntil: Int64 {
        let (until, overflow) = max(modifiedNanoseconds, changedNanoseconds).addingReportingOverflow(granularityNanoseconds)
        return overflow ? .max : until
    }

    /// Whether a change right after `moment` could leave the file with this status: `moment` is
    /// not past `racyUntil`. A digest taken then is not trusted on the status alone later (git's
    /// "racy" rule), and the contents are hashed again.
    package func isRacy(at moment: Int64) -> Bool {
        moment <= racyUntil
    }

    /// The kernel's coarse wall clock (`CLOCK_REALTIME_COARSE`), in nanoseconds since 1970: the
    /// clock Linux stamps files with, so a file changed after this moment is stamped at or after
    /// it, however late the clock's tick.
    package static var clockNanoseconds: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
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
