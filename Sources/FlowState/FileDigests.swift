import Crypto
import FlowFiles
import Foundation

/// Digests of files, taken from records while a record stands for the file's status now
/// (`FileRecord.stands(for:)`), and hashed otherwise; what it hashed is kept for the state.
struct FileDigests {
    private(set) var known: [String: FileRecord]
    let fileSystem: any FileSystem
    /// The wall clock before any file was looked at: the moment each record made here is of.
    let moment: Int64
    /// Files hashed now whose record is new or changed.
    private(set) var fresh: [(path: String, record: FileRecord)] = []
    /// The same, by path: a file asked for twice is hashed once while its status holds.
    private var hashed: [String: FileRecord] = [:]
    /// The files hashed in this run so far, shared by every task's digests (not copied): a
    /// need's output is its dependent's input, and is hashed once.
    private let run: HashedInRun?

    init(known: [String: FileRecord], fileSystem: any FileSystem = LocalFileSystem(), run: HashedInRun? = nil) {
        self.known = known
        self.fileSystem = fileSystem
        self.run = run
        moment = fileSystem.nowNanoseconds
    }

    /// The records of a task's files kept at its last success, as `known`.
    init(stamped: [StampedFile], fileSystem: any FileSystem, run: HashedInRun? = nil) {
        self.init(known: [:], fileSystem: fileSystem, run: run)
        for file in stamped { know(file) }
    }

    /// Takes `file`'s record as known (what a task's state kept of it).
    mutating func know(_ file: StampedFile) {
        known[file.path] = file.record
        if HiddenPath.isHidden(file.path) { knowsHiddenPaths = true }
    }

    /// Whether a record known is of a path kept hidden (`HiddenPath`): a path is then looked
    /// for in that form too.
    private var knowsHiddenPaths = false

    /// The record known of `path`, kept in clear or hidden.
    func knownRecord(of path: String) -> FileRecord? {
        known[path] ?? (knowsHiddenPaths ? known[HiddenPath.of(path)] : nil)
    }

    /// The file's digest; nil if it is missing or cannot be read.
    mutating func digest(of path: String) -> String? {
        guard let status = fileSystem.status(of: path) else { return nil }
        return digest(of: path, status: status)
    }

    mutating func digest(of path: String, status: FileStatus) -> String? {
        record(of: path, status: status)?.digest
    }

    /// The file's record: the one known while it stands, else the file hashed now.
    mutating func record(of path: String, status: FileStatus) -> FileRecord? {
        if let record = knownRecord(of: path), record.stands(for: status) { return record }
        if let record = hashed[path], record.status == status { return record }
        if let record = run?.record(of: path), record.stands(for: status) { return record }
        // Computed by the action that wrote or read the file: as of when it was noted.
        let streamed = fileSystem.streamedDigest(for: status)
        guard let digest = streamed?.digest ?? fileSystem.hash(of: path) else { return nil }
        // Hashed: its contents are those of `status` only if it still has it. One saved between
        // the stat and the read (while a large file before it was hashed) is taken as unreadable,
        // so its task runs again next time: its record would pair the old stamp with the new
        // contents, which the next run, hashing the file again, would take as unchanged.
        if streamed == nil, fileSystem.status(of: path) != status { return nil }
        let hashedAt = streamed.map { min($0.notedAtNanoseconds, moment) } ?? moment
        let record = FileRecord(status: status, digest: digest, hashedAtNanoseconds: hashedAt)
        fresh.append((path, record))
        hashed[path] = record
        run?.keep(record, of: path)
        return record
    }

    /// One digest over the files that `patterns` name and their contents, and the patterns that
    /// name no file (a missing input or output) or a file that cannot be stat'ed (a name that
    /// is not UTF-8, `PathGlob`): such a file is not seen, so its task must not be up to date.
    mutating func digest(
        ofPatterns patterns: [String], leavingOut own: OwnOutputs = .none, singleFiles: Int = 0, areOutputs: Bool = false
    ) -> (digest: String, missing: [String]) {
        // Most tasks of a workflow that declares no files: the same digest, not hashed each time.
        guard !patterns.isEmpty else { return (TaskFingerprint.noInputs, []) }
        let result = digest(of: statuses(ofPatterns: patterns, leavingOut: own, singleFiles: singleFiles, areOutputs: areOutputs), patterns: patterns)
        return (result.digest, result.missing)
    }

    /// The same over the files found already (`statuses(ofPatterns:)`), with each file's record
    /// for the state (an unreadable file has none).
    mutating func digest(of found: [FoundFile], patterns: [String]) -> (digest: String, missing: [String], files: [StampedFile]) {
        digest(of: found[...], patterns: patterns)
    }

    /// The same over part of a list (`FilesBeforeRun` holds every task's files in one).
    mutating func digest(of found: ArraySlice<FoundFile>, patterns: [String]) -> (digest: String, missing: [String], files: [StampedFile]) {
        guard !patterns.isEmpty else { return (TaskFingerprint.noInputs, [], []) }
        // Fed to the hasher line by line: the digest of the lines joined, without the text.
        var hasher = SHA256()
        var missing: [String] = []
        var files: [StampedFile] = []
        var next = found.startIndex
        for (index, pattern) in patterns.enumerated() {
            TaskFingerprint.update(&hasher, "pattern\0", pattern, "\n")
            let first = next
            var unseen = false
            while next < found.endIndex, found[next].pattern == index {
                let file = found[next]
                next += 1
                unseen = unseen || file.status == nil
                var digest = "unreadable"
                if let status = file.status, let kept = record(of: file.path, status: status) {
                    files.append(StampedFile(pattern: index, path: file.path, record: kept))
                    digest = kept.digest
                }
                TaskFingerprint.update(&hasher, file.path, "\0", digest, "\n")
            }
            if next == first || unseen { missing.append(pattern) }
        }
        return (FileRecord.hex(hasher.finalize()), missing, files)
    }

    /// The files hashed now (`fresh`), letting go of the records known first.
    mutating func takeFresh() -> [(path: String, record: FileRecord)] {
        known = [:]
        hashed = [:]
        return fresh
    }

    /// Each file `patterns` name, with its pattern's index, in order, and its status now (nil:
    /// unreadable). A plain path to a file, the usual entry, is stat'ed once here rather than
    /// by PathGlob and again for its record.
    func statuses(
        ofPatterns patterns: [String], leavingOut own: @autoclosure () -> OwnOutputs = .none, singleFiles: Int = 0,
        areOutputs: Bool = false
    ) -> [FoundFile] {
        Self.statuses(ofPatterns: patterns, leavingOut: own(), singleFiles: singleFiles, areOutputs: areOutputs, fileSystem: fileSystem)
    }

    /// `own`: the task's outputs, which a glob's or a folder's matches leave out (`OwnOutputs`);
    /// taken only for a pattern that is not a plain file (a task's own outputs cost a few
    /// thousand instructions to sort out, each of a no-op's 20,000 tasks). `singleFiles`: how
    /// many patterns, from the first, name one file each (`TaskDefinition.singleFileInputs`):
    /// one that is no regular file is found as no file, never walked. `areOutputs`: a task's
    /// outputs, whose links and bare folders are found too (`FileSystem.outputFiles`).
    static func statuses(
        ofPatterns patterns: [String], leavingOut own: @autoclosure () -> OwnOutputs = .none, singleFiles: Int = 0,
        areOutputs: Bool = false, fileSystem: any FileSystem
    ) -> [FoundFile] {
        var found: [FoundFile] = []
        found.reserveCapacity(patterns.count)
        // Made at the first pattern that is not a plain file: most tasks never need it.
        var outputs: OwnOutputs.Matcher?
        var outputStatuses: Set<FileStatus> = []
        var ownTaken = false
        for (index, pattern) in patterns.enumerated() {
            if !PathGlob.isPattern(pattern), let status = fileSystem.regularFileStatus(of: pattern) {
                found.append(FoundFile(pattern: index, path: pattern, status: status))
                continue
            }
            if index < singleFiles { continue }
            if !ownTaken {
                ownTaken = true
                let own = own()
                if !own.isEmpty {
                    outputs = own.matcher(fileSystem: fileSystem)
                    outputStatuses = own.statuses(fileSystem: fileSystem)
                }
            }
            let files = areOutputs ? fileSystem.outputFiles(matching: pattern) : fileSystem.files(matching: pattern)
            for file in files where !(outputs?.contains(file) ?? false) {
                let status = fileSystem.status(of: file)
                // An output reached by another name (through a link), as combine leaves it out.
                if let status, outputStatuses.contains(status) { continue }
                found.append(FoundFile(pattern: index, path: file, status: status))
            }
        }
        return found
    }
}

/// The files hashed in one run, by path (`FileDigests`): by the checks on the loop and by the
/// hashing of finished tasks' files off it (`SuccessHashing`), so behind a lock of its own.
final class HashedInRun: @unchecked Sendable {
    private let lock = NSLock()
    private var records: [String: FileRecord] = [:]

    func record(of path: String) -> FileRecord? {
        lock.withLock { records[path] }
    }

    func keep(_ record: FileRecord, of path: String) {
        lock.withLock { records[path] = record }
    }
}
