import Foundation

/// Digests of files, taken from the log's records while a file's size, mtime and inode are
/// those recorded, and hashed otherwise; what it hashed is kept for the log.
struct FileDigests {
    let known: [String: FileRecord]
    /// Files hashed now whose record is new or changed.
    private(set) var fresh: [(path: String, record: FileRecord)] = []

    init(known: [String: FileRecord]) {
        self.known = known
    }

    /// The file's digest; nil if it is missing or cannot be read.
    mutating func digest(of path: String) -> String? {
        guard let status = FileRecord.status(of: path) else { return nil }
        return digest(of: path, status: status)
    }

    private mutating func digest(
        of path: String, status: (size: Int64, modifiedNanoseconds: Int64, inode: UInt64)
    ) -> String? {
        if let record = known[path], record.size == status.size, record.modifiedNanoseconds == status.modifiedNanoseconds,
            record.inode == status.inode
        {
            return record.digest
        }
        guard let digest = FileRecord.hash(of: path) else { return nil }
        fresh.append(
            (path, FileRecord(size: status.size, modifiedNanoseconds: status.modifiedNanoseconds, inode: status.inode, digest: digest)))
        return digest
    }

    /// One digest over the files that `patterns` name and their contents, and the patterns that
    /// name no file (a missing input or output).
    mutating func digest(ofPatterns patterns: [String]) -> (digest: String, missing: [String]) {
        var text = ""
        var missing: [String] = []
        for pattern in patterns {
            text += "pattern\0\(pattern)\n"
            // A plain path to a file, the usual entry, is stat'ed once here rather than by
            // PathGlob and again for its record.
            if !PathGlob.isPattern(pattern), let status = Self.regularFileStatus(of: pattern) {
                text += "\(pattern)\0\(digest(of: pattern, status: status) ?? "unreadable")\n"
                continue
            }
            let files = PathGlob.files(matching: pattern)
            if files.isEmpty { missing.append(pattern) }
            for file in files { text += "\(file)\0\(digest(of: file) ?? "unreadable")\n" }
        }
        return (TaskFingerprint.hash(text), missing)
    }

    /// The size, mtime and inode of `path` if it is a regular file (symlinks followed, as
    /// PathGlob does); nil for a folder, a missing path or anything else.
    private static func regularFileStatus(of path: String) -> (size: Int64, modifiedNanoseconds: Int64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let nanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return (Int64(info.st_size), nanoseconds, UInt64(info.st_ino))
    }
}
