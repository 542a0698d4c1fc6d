import Crypto
import FlowFiles
import Foundation

/// Digests of files, taken from the log's records while a record stands for the file's status
/// now (`FileRecord.stands(for:)`), and hashed otherwise; what it hashed is kept for the log.
struct FileDigests {
    private(set) var known: [String: FileRecord]
    let fileSystem: any FileSystem
    /// The wall clock before any file was looked at: the moment each record made here is of.
    let moment: Int64
    /// Files hashed now whose record is new or changed.
    private(set) var fresh: [(path: String, record: FileRecord)] = []
    /// The same, by path: a file asked for twice is hashed once while its status holds.
    private var hashed: [String: FileRecord] = [:]

    init(known: [String: FileRecord], fileSystem: any FileSystem = LocalFileSystem()) {
        self.known = known
        self.fileSystem = fileSystem
        moment = fileSystem.nowNanoseconds
    }

    /// The file's digest; nil if it is missing or cannot be read.
    mutating func digest(of path: String) -> String? {
        guard let status = fileSystem.status(of: path) else { return nil }
        return digest(of: path, status: status)
    }

    mutating func digest(of path: String, status: FileStatus) -> String? {
        if let record = known[path], record.stands(for: status) { return record.digest }
        if let record = hashed[path], record.status == status { return record.digest }
        // Computed by the action that wrote or read the file: as of when it was noted.
        let streamed = fileSystem.streamedDigest(for: status)
        guard let digest = streamed?.digest ?? fileSystem.hash(of: path) else { return nil }
        let hashedAt = streamed.map { min($0.notedAtNanoseconds, moment) } ?? moment
        let record = FileRecord(status: status, digest: digest, hashedAtNanoseconds: hashedAt)
        fresh.append((path, record))
        hashed[path] = record
        return digest
    }

    /// The files hashed now (`fresh`), for the log, letting go of the log's records first: while
    /// they are held here, each file the log notes copies all of them (a 20,000-task no-op run
    /// after every input was touched took 36 s, quadratic).
    mutating func takeFresh() -> [(path: String, record: FileRecord)] {
        known = [:]
        hashed = [:]
        return fresh
    }

    /// One digest over the files that `patterns` name and their contents, and the patterns that
    /// name no file (a missing input or output).
    mutating func digest(ofPatterns patterns: [String]) -> (digest: String, missing: [String]) {
        // Most tasks of a workflow that declares no files: the same digest, not hashed each time.
        guard !patterns.isEmpty else { return (TaskFingerprint.noInputs, []) }
        // Fed to the hasher line by line: the digest of the lines joined, without the text.
        var hasher = SHA256()
        var missing: [String] = []
        for pattern in patterns {
            TaskFingerprint.update(&hasher, "pattern\0", pattern, "\n")
            // A plain path to a file, the usual entry, is stat'ed once here rather than by
            // PathGlob and again for its record.
            if !PathGlob.isPattern(pattern), let status = fileSystem.regularFileStatus(of: pattern) {
                TaskFingerprint.update(&hasher, pattern, "\0", digest(of: pattern, status: status) ?? "unreadable", "\n")
                continue
            }
            let files = fileSystem.files(matching: pattern)
            if files.isEmpty { missing.append(pattern) }
            for file in files { TaskFingerprint.update(&hasher, file, "\0", digest(of: file) ?? "unreadable", "\n") }
        }
        return (FileRecord.hex(hasher.finalize()), missing)
    }

    /// Each file `patterns` name, under its pattern, with its status now (nil: unreadable).
    func statuses(ofPatterns patterns: [String]) -> [(pattern: String, path: String, status: FileStatus?)] {
        var found: [(pattern: String, path: String, status: FileStatus?)] = []
        for pattern in patterns {
            if !PathGlob.isPattern(pattern), let status = fileSystem.regularFileStatus(of: pattern) {
                found.append((pattern, pattern, status))
                continue
            }
            for file in fileSystem.files(matching: pattern) { found.append((pattern, file, fileSystem.status(of: file))) }
        }
        return found
    }
}
