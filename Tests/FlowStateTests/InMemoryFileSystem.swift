import FlowFiles
import Foundation

@testable import FlowState

/// The file system twin of `LocalFileSystem`: files with contents and a status the test sets,
/// a clock that moves only when told, and a count of the hashes taken. Plain paths, and `FOLDER/*` for a glob.
final class InMemoryFileSystem: FileSystem, @unchecked Sendable {
    private var files: [String: (contents: String, status: FileStatus)] = [:]
    private var lastInode: UInt64 = 0
    private(set) var hashes = 0
    /// The paths hashed, in order.
    private(set) var hashedPaths: [String] = []
    /// Digests noted by an "action" as it wrote a file, by inode, with the status then.
    private var streamed: [UInt64: (status: FileStatus, noted: StreamedDigests.Noted)] = [:]
    var nowNanoseconds: Int64

    init(now: Int64 = 1_000 * 1_000_000_000) {
        nowNanoseconds = now
    }

    /// Writes `contents`, stamping the mtime and ctime with the clock, as a write does.
    func write(_ path: String, _ contents: String) {
        if files[path] == nil { lastInode += 1 }
        let inode = files[path]?.status.inode ?? lastInode
        files[path] = (
            contents,
            FileStatus(
                size: Int64(contents.utf8.count), modifiedNanoseconds: nowNanoseconds, changedNanoseconds: nowNanoseconds,
                inode: inode)
        )
    }

    /// Replaces the contents and leaves the status as it was: a change that the status cannot
    /// show (the same size, within one tick of the file system's clock).
    func replaceKeepingStatus(_ path: String, _ contents: String) {
        files[path]?.contents = contents
    }

    /// Sets the file's times, as `touch -d` would the mtime (the ctime only a test can set).
    func setStatus(_ path: String, modifiedNanoseconds: Int64, changedNanoseconds: Int64) {
        files[path]?.status.modifiedNanoseconds = modifiedNanoseconds
        files[path]?.status.changedNanoseconds = changedNanoseconds
    }

    func contents(_ path: String) -> String? { files[path]?.contents }

    func advance(seconds: Double) {
        nowNanoseconds += Int64(seconds * 1e9)
    }

    /// How often the check waited for the clock, and for how long in all.
    private(set) var waits = 0
    private(set) var waitedNanoseconds: Int64 = 0

    /// Moves the clock just past `moment`, as waiting for it would.
    func waitForClock(toPass moment: Int64) {
        guard nowNanoseconds <= moment else { return }
        waits += 1
        waitedNanoseconds += moment + 1 - nowNanoseconds
        nowNanoseconds = moment + 1
    }

    func status(of path: String) -> FileStatus? { files[path]?.status }
    func regularFileStatus(of path: String) -> FileStatus? { files[path]?.status }
    /// Called at each `files(matching:)`, with the pattern: what happens during a walk.
    var onWalk: ((String) -> Void)?

    /// A plain path, or `FOLDER/*`: the files directly in FOLDER, sorted.
    func files(matching pattern: String) -> [String] {
        onWalk?(pattern)
        guard pattern.hasSuffix("/*") else { return files[pattern] == nil ? [] : [pattern] }
        let folder = pattern.dropLast()
        return files.keys.filter { $0.hasPrefix(folder) && !$0.dropFirst(folder.count).contains("/") }.sorted()
    }

    func remove(_ path: String) {
        files[path] = nil
    }

    /// Notes the file's digest as an action does once it has written it (`StreamedDigests`).
    func noteStreamedDigest(of path: String) {
        guard let file = files[path] else { return }
        streamed[file.status.inode] = (file.status, .init(digest: Self.digest(file.contents), notedAtNanoseconds: nowNanoseconds))
    }

    func streamedDigest(for status: FileStatus) -> StreamedDigests.Noted? {
        guard let entry = streamed[status.inode], entry.status == status else { return nil }
        streamed[status.inode] = nil
        return entry.noted
    }

    func hash(of path: String) -> String? {
        guard let contents = files[path]?.contents else { return nil }
        hashes += 1
        hashedPaths.append(path)
        return Self.digest(contents)
    }

    /// The XXH3-128 of `contents`, lowercase hex, as `FileRecord.hash(of:)` gives a file's.
    static func digest(_ contents: String) -> String {
        XXH128Hasher.hash(contents)
    }
}
