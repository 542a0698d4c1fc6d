import FlowFiles
import Foundation

/// What the up-to-date and resume checks ask of the disk, so that their rules can be tested on
/// an in-memory twin with a clock that moves only when told (ninja's `DiskInterface`).
package protocol FileSystem: Sendable {
    /// The status of `path` (symlinks followed, unless that reaches no regular file: then the
    /// link's own, `lstat`); nil if it cannot be read.
    func status(of path: String) -> FileStatus?
    /// The status of `path` if it is a regular file (symlinks followed); nil otherwise.
    func regularFileStatus(of path: String) -> FileStatus?
    /// The regular files an `inputs`/`outputs` entry names (`PathGlob`), sorted.
    func files(matching pattern: String) -> [String]
    /// The same for a task's `outputs`, with the links and bare folders it holds
    /// (`PathGlob.Matches.outputEntries`).
    func outputFiles(matching pattern: String) -> [String]
    /// The XXH3-128 of the file's contents (`XXH128Hasher`), lowercase hex; nil if it cannot be read. Of a link
    /// that reaches no regular file, that of its target's text; of a folder, one for any folder.
    func hash(of path: String) -> String?
    /// The wall clock, in nanoseconds since 1970, as file timestamps count.
    var nowNanoseconds: Int64 { get }
    /// Returns once `nowNanoseconds` is past `moment`, at most a fraction of a second ahead
    /// (files written that long ago have settled: `FileStatus.isRacy`).
    func waitForClock(toPass moment: Int64)
    /// The digest an action computed of the file with this status while it wrote or read it
    /// (`StreamedDigests`), and when; handed out once; nil if there is none.
    func streamedDigest(for status: FileStatus) -> StreamedDigests.Noted?
    /// Whether `streamedDigest(for:)` has one for this status, left for it to hand out.
    func hasStreamedDigest(for status: FileStatus) -> Bool
}

extension FileSystem {
    package func outputFiles(matching pattern: String) -> [String] { files(matching: pattern) }
    /// None by default: the twins in tests hand out none.
    package func hasStreamedDigest(for status: FileStatus) -> Bool { false }
}

/// The real disk.
package struct LocalFileSystem: FileSystem {
    /// Asked by walks, stats and hashes, which give up once it is requested: a cut-short walk
    /// finds no file, a stat no status and a hash none (the check then takes nothing of them,
    /// `UpToDateCheck`).
    private let stop: SetOnceFlag?

    package init(stop: SetOnceFlag? = nil) {
        self.stop = stop
    }

    package func status(of path: String) -> FileStatus? {
        // The stat after a walk, one a file: 200,000 of them take seconds too.
        if stop?.isSet == true { return nil }
        var info = stat()
        // A link to no regular file (`l -> missing`, `l -> .`) is stamped as the link, so that
        // retargeting it is a change (`PathGlob.Matches.outputEntries`).
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG { return FileStatus(info) }
        guard lstat(path, &info) == 0 else { return nil }
        return FileStatus(info)
    }

    package func regularFileStatus(of path: String) -> FileStatus? {
        FileStatus.of(path: path)
    }

    package func files(matching pattern: String) -> [String] {
        PathGlob.files(matching: pattern, until: stop) ?? []
    }

    package func outputFiles(matching pattern: String) -> [String] {
        PathGlob.files(matching: pattern, as: .outputEntries, until: stop) ?? []
    }

    package func hash(of path: String) -> String? {
        if let digest = FileRecord.hash(of: path, until: stop) { return digest }
        return FileRecord.hashOfEntry(at: path)
    }

    package func streamedDigest(for status: FileStatus) -> StreamedDigests.Noted? {
        StreamedDigests.shared.take(status)
    }

    package func hasStreamedDigest(for status: FileStatus) -> Bool {
        StreamedDigests.shared.has(status)
    }

    /// The kernel's coarse clock, the one it stamps files with: a change after this moment is
    /// stamped at or after it.
    package var nowNanoseconds: Int64 {
        FileStatus.clockNanoseconds
    }

    package func waitForClock(toPass moment: Int64) {
        while true {
            let left = moment - nowNanoseconds
            guard left >= 0 else { return }
            // The coarse clock moves a tick at a time: sleep to the moment, then look again.
            var pause = timespec(tv_sec: 0, tv_nsec: Int(min(left, 100_000_000) + 1_000_000))
            var rest = timespec()
            while nanosleep(&pause, &rest) != 0, errno == EINTR { pause = rest }
        }
    }
}
