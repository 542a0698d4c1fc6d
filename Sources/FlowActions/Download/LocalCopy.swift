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

    /// What is copied: a file by path, or a shared transfer's bytes.
    enum Source: Sendable {
        case path(String)
        case finished(FinishedFile)
    }

    /// Calls `completion` on the file's queue once `source` is copied in full, or failed, or
    /// stopped by `cancel()`; the file is emptied first, as a copy never resumes.
    func start(
        from source: Source, into file: PartialFile, progress: @escaping @Sendable (Int64, Int64?) -> Void,
        completion: @escaping @Sendable (Result<Void, ActionFailure>) -> Void
    ) {
        file.queue.async {
            completion(Result { () throws(ActionFailure) in try self.copy(from: source, into: file, progress: progress) })
        }
    }

    private func copy(from source: Source, into file: PartialFile, progress: (Int64, Int64?) -> Void) throws(ActionFailure) {
        if file.size > 0 { try file.restart() }
        switch source {
        case .path(let path):
            // O_NONBLOCK: a FIFO with no writer would block the open, deaf to cancel and
            // timeout; it is refused below as not a regular file (reads of one ignore the flag).
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else {
                throw ActionFailure("cannot read \(path): \(String(cString: strerror(errno)))", retryable: false)
            }
            defer { close(fd) }
            try copy(from: fd, named: path, into: file, progress: progress)
        case .finished(let finished):
            try withExtendedLifetime(finished) { () throws(ActionFailure) in
                try copy(from: finished.descriptor, named: "the transferred file", into: file, progress: progress)
            }
        }
    }

    /// Reads with pread from the start, so that tasks sharing one descriptor never disturb
    /// each other's offset.
    private func copy(from fd: Int32, named source: String, into file: PartialFile, progress: (Int64, Int64?) -> Void) throws(ActionFailure) {
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw ActionFailure("cannot read \(source): not a regular file", retryable: false)
        }
        let total = Int64(status.st_size)
        progress(0, total)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while !isCancelled {
            let count = pread(fd, buffer.baseAddress!, buffer.count, off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw ActionFailure("cannot read \(source): \(String(cString: strerror(errno)))", retryable: false)
            }
            if count == 0 { return }
            offset += Int64(count)
            try file.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            progress(file.size, max(total, file.size))
        }
    }
}
