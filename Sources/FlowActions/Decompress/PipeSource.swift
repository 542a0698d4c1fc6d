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
    /// Bytes read by `startsWithGzip()`, in `buffer`, that the next read returns.
    private var peeked = 0
    /// Bytes handed to the reader, and whether the writer's end came: then they are the input's
    /// length, what a tar cut inside its last header is told by (`TruncatedTar`).
    private(set) var bytesRead: Int64 = 0
    private(set) var reachedEnd = false

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

    /// Whether the input starts as gzip does (1f 8b 08): it is then inflated by zlib, which
    /// checks the trailers (`GzipInflater`). Called before the reader opens; what it reads is
    /// the first block read. False on an error or a cancel, which the reader then meets.
    func startsWithGzip() -> Bool {
        while peeked < 3 && !isCancelled() {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if ready < 0 && errno != EINTR { return false }
            if ready <= 0 { continue }
            let count = Foundation.read(descriptor, buffer + peeked, capacity - peeked)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return false }
            peeked += count
        }
        let start = buffer.assumingMemoryBound(to: UInt8.self)
        return peeked >= 3 && start[0] == 0x1f && start[1] == 0x8b && start[2] == 8
    }

    /// A block of input, 0 at its end, -1 on an error or a cancel.
    private func read(into block: UnsafeMutablePointer<UnsafeRawPointer?>) -> la_ssize_t {
        if peeked > 0 {
            defer { peeked = 0 }
            block.pointee = UnsafeRawPointer(buffer)
            bytesRead += Int64(peeked)
            return peeked
        }
        while !isCancelled() {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, 100)
            if ready < 0 && errno != EINTR { return -1 }
            if ready <= 0 { continue }
            let count = Foundation.read(descriptor, buffer, capacity)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count >= 0 else { return -1 }
            block.pointee = UnsafeRawPointer(buffer)
            bytesRead += Int64(count)
            if count == 0 { reachedEnd = true }
            return count
        }
        return -1
    }
}
