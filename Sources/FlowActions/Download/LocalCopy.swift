import Dispatch
import Foundation
import Glibc
import NIOConcurrencyHelpers

/// Copies a local file into a `PartialFile` in chunks on the file's queue, hashing as it goes:
/// a `file://` URL, a cache blob, or another task's finished download of the same URL.
final class LocalCopy: Sendable {
    private static let chunkSize = 1 << 20
    private let cancelled = NIOLockedValueBox(false)

    func cancel() { cancelled.withLockedValue { $0 = true } }
    var isCancelled: Bool { cancelled.withLockedValue { $0 } }

    /// Calls `completion` on the file's queue once `source` is copied in full, or failed, or
    /// stopped by `cancel()`; the file is emptied first, as a copy never resumes.
    func start(
        from source: String, into file: PartialFile, progress: @escaping @Sendable (Int64, Int64?) -> Void,
        completion: @escaping @Sendable (Result<Void, DownloadFailure>) -> Void
    ) {
        file.queue.async {
            completion(Result { () throws(DownloadFailure) in try self.copy(from: source, into: file, progress: progress) })
        }
    }

    /// Copies at once on the calling thread, which must be the file's queue.
    func copyNow(from source: String, into file: PartialFile) -> Result<Void, DownloadFailure> {
        Result { () throws(DownloadFailure) in try copy(from: source, into: file, progress: { _, _ in }) }
    }

    private func copy(from source: String, into file: PartialFile, progress: (Int64, Int64?) -> Void) throws(DownloadFailure) {
        if file.size > 0 { try file.restart() }
        let fd = open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw DownloadFailure("cannot read \(source): \(String(cString: strerror(errno)))", retryable: false)
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw DownloadFailure("cannot read \(source): not a regular file", retryable: false)
        }
        let total = Int64(status.st_size)
        progress(0, total)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while !isCancelled {
            let count = read(fd, buffer.baseAddress!, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw DownloadFailure("cannot read \(source): \(String(cString: strerror(errno)))", retryable: false)
            }
            if count == 0 { return }
            try file.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            progress(file.size, max(total, file.size))
        }
    }
}
