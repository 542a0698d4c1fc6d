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
            let files = PathGlob.files(matching: pattern)
            if files.isEmpty { missing.append(pattern) }
            text += "pattern\0\(pattern)\n"
            for file in files { text += "\(file)\0\(digest(of: file) ?? "unreadable")\n" }
        }
        return (TaskFingerprint.hash(text), missing)
    }
}
