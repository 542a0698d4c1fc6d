import FlowModel
import Foundation

/// A 0-byte archive, the usual trace of a failed or cut download, is refused whatever its
/// format, as GNU tar, gzip/xz/bzip2/zstd -t and unzip refuse it (bsdtar alone extracts
/// nothing and exits 0): a task that succeeds has extracted something real.
enum EmptyArchive {
    static func failure(_ path: String, format: ArchiveFormat?) -> ActionFailure {
        ActionFailure("'\(path)' is empty (0 bytes): not \(format.map { "a \($0.rawValue) archive" } ?? "an archive")")
    }

    /// Fails if `path` is a regular file of 0 bytes, before anything is made beside `to`;
    /// anything else is left to the reader (a missing file fails as it opens, a pipe that gives
    /// nothing once it was read: `ExtractionSession`).
    static func refuse(_ path: String, format: ArchiveFormat?) throws(ActionFailure) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == 0 else { return }
        throw failure(path, format: format)
    }
}
