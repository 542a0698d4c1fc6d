import FlowFiles

extension FileStatus {
    /// Whether this status, taken after a rename, is of the file `before` was taken of: a
    /// rename moves the ctime alone, where a write moves the size or the mtime too.
    func isRenamed(from before: Self) -> Bool {
        inode == before.inode && size == before.size && modifiedNanoseconds == before.modifiedNanoseconds
    }
}
