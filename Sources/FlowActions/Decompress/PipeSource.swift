import CArchive
import Foundation

/// Feeds libarchive an archive that is not a regular file (a pipe, a FIFO), waiting in `poll`
/// a tenth of a second at a time, so that a cancel is seen even while the writer is silent.
/// (A regular file never keeps a read waiting: libarchive reads it directly, and can seek.)
final class PipeSource {
    private let descriptor: Int32
    private let isCancelled: () -> Bool
    private let capacity = 64 * 1024
    private let buffer: UnsafeMutableRawPointer

    init(descriptor: Int32, isCancelled: @escaping () -> Bool) {
        self.descriptor = descriptor
        self.isCancelled = isCancelled
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Opens `reader` on this source; the source must outlive the reader's use.
    func open(_ reader: OpaquePointer) -> Int32 {
        archive_read_open(
            reader, Unmanaged.passUnretained(self).toOpaque(), nil,
            { _, data, block in
                guard let data, let block else { return -1 }
                return Unmanaged<PipeSource>.fromOpaque(data).takeUnretainedValue().read(into: block)
            }, nil)
    }

    /// A block of input, 0 at its end, -1 on an error or a cancel.
    private func read(into block: UnsafeMutablePointer<UnsafeRawPointer?>) -> la_ssize_t {
        while !isCancelled() {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if ready < 0 && errno != EINTR { return -1 }
            if ready <= 0 { continue }
            let count = Foundation.read(descriptor, buffer, capacity)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count >= 0 else { return -1 }
            block.pointee = UnsafeRawPointer(buffer)
            return count
        }
        return -1
    }
}
