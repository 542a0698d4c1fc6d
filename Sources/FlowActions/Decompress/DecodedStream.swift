import CArchive
import Foundation

/// Decompression (gzip, xz, bzip2, zstd, ...) on a thread of its own, as GNU tar runs gzip or
/// xz in another process: a reader of the raw format with the archive's filters decodes the
/// file on the decode thread into a bounded ring of buffers, and the archive reader on the
/// extracting thread reads the decoded bytes from the ring (`open(_:)`). Decoding and writing
/// the files then take a core each.
///
/// Memory is the ring's, whatever the archive expands to: the decoder waits for a free buffer.
/// The extracting side ends the decoder by `stop()` (after a failure, a cancel or the end),
/// which returns once the decode thread has finished with the reader; a decoding error reaches
/// the archive reader after the bytes decoded before it, with the decoder's own message.
///
/// - Warning: `@unchecked Sendable`: the ring's state is guarded by `condition`; the decoder
///   reader is used by the decode thread alone from `start()` until `stop()` returns.
final class DecodedStream: @unchecked Sendable {
    static let bufferSize = 256 * 1024
    static let bufferCount = 8

    /// Decodes the file, on the decode thread once it started.
    private let decoder: any StreamDecoder
    private let buffers: [UnsafeMutableRawPointer]
    private let condition = NSCondition()
    /// Guarded by `condition`, as everything below.
    private var lengths = [Int](repeating: 0, count: bufferCount)
    /// Compressed bytes the decoder had read once it filled each buffer.
    private var consumed = [Int64](repeating: 0, count: bufferCount)
    private var nextToFill = 0
    private var nextToTake = 0
    private var filled = 0
    /// The buffer the archive reader was handed last: it is libarchive's until its next read.
    private var held = false
    private var end: End?
    private var stopped = false
    private var threadStarted = false
    private var threadEnded = false
    /// Compressed bytes read when the buffer the archive reader holds was decoded.
    private var compressedBytesNow: Int64 = 0
    /// Bytes decoded so far: the decoded stream's length once it ended.
    private var decodedBytes: Int64 = 0
    /// Dropped by `stop()`: the extraction lends it for its own lifetime only.
    private var isCancelled: (() -> Bool)?

    private enum End {
        case finished
        case failed(code: Int32, message: String)
    }

    /// `atEnd`: the file is a compressed stream of nothing (there is nothing to decode).
    init(decoder: any StreamDecoder, atEnd: Bool, isCancelled: @escaping () -> Bool) {
        self.decoder = decoder
        self.isCancelled = isCancelled
        if atEnd { end = .finished }
        buffers = (0..<Self.bufferCount).map { _ in UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 64) }
    }

    deinit {
        stop()
        for buffer in buffers { buffer.deallocate() }
    }

    /// Starts the decode thread.
    func start() {
        let starts = condition.withLock {
            threadStarted = end == nil
            return threadStarted
        }
        guard starts else { return }
        WorkerThread.start(
            named: "flowrun.decode", condition: condition, work: { [self] in decodeAll() }, ended: { [self] in threadEnded = true })
    }

    /// Ends the decoder and waits for the decode thread to finish with the reader: at most one
    /// buffer's decoding.
    func stop() {
        condition.withLock {
            stopped = true
            isCancelled = nil
            condition.broadcast()
            while threadStarted && !threadEnded { condition.wait() }
        }
    }

    /// Compressed bytes read from the file up to the decoded bytes the archive reader has now.
    var compressedBytes: Int64 { condition.withLock { compressedBytesNow } }

    /// The decoded stream's length, once it was decoded to its end without a failure.
    var decodedLength: Int64? {
        condition.withLock {
            if case .finished = end { return decodedBytes }
            return nil
        }
    }

    /// Opens `reader` on the decoded bytes; this stream must outlive the reader's use.
    func open(_ reader: OpaquePointer) -> Int32 {
        archive_read_open(
            reader, Unmanaged.passUnretained(self).toOpaque(), nil,
            { archive, data, block in
                guard let data, let block else { return -1 }
                return Unmanaged<DecodedStream>.fromOpaque(data).takeUnretainedValue().read(archive, into: block)
            }, nil)
    }

    /// The next decoded buffer; 0 at the end; -1 on a decoding error (its message set on
    /// `archive`) or a cancel. Waits a tenth of a second at a time, so that a cancel is seen
    /// while the decoder is slow (a large xz block).
    private func read(_ archive: OpaquePointer?, into block: UnsafeMutablePointer<UnsafeRawPointer?>) -> la_ssize_t {
        condition.lock()
        defer { condition.unlock() }
        if held {
            held = false
            nextToTake = (nextToTake + 1) % Self.bufferCount
            condition.broadcast()
        }
        while filled == 0 && end == nil {
            if isCancelled?() ?? true { return -1 }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
        }
        if filled > 0 {
            filled -= 1
            held = true
            compressedBytesNow = consumed[nextToTake]
            block.pointee = UnsafeRawPointer(buffers[nextToTake])
            return lengths[nextToTake]
        }
        if case .failed(let code, let message) = end {
            if let archive { flowrun_archive_set_error(archive, code, message) }
            return -1
        }
        return 0
    }

    /// The decoder's message once it failed; nil before, or if it did not.
    var failureMessage: String? {
        condition.withLock {
            if case .failed(_, let message) = end { return message }
            return nil
        }
    }

    /// Decodes what the archive reader left unread (a tar's last record, a gzip trailer) to the
    /// file's end, so that a corrupt end fails the extraction as it fails GNU tar: the
    /// decoder's message, or nil. Nil too on a cancel, which the caller checks.
    func finish(isCancelled: () -> Bool) -> String? {
        condition.lock()
        defer { condition.unlock() }
        while end == nil {
            if isCancelled() { return nil }
            // Every decoded buffer is dropped: the decoder fills the ring again.
            held = false
            filled = 0
            nextToTake = nextToFill
            condition.broadcast()
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
        }
        if case .failed(_, let message) = end { return message }
        return nil
    }

    private func decodeAll() {
        while true {
            let index: Int? = condition.withLock {
                while !stopped && filled + (held ? 1 : 0) == Self.bufferCount { condition.wait() }
                return stopped ? nil : nextToFill
            }
            guard let index else { return }
            let count = decoder.decode(into: buffers[index], capacity: Self.bufferSize)
            let bytes = decoder.compressedBytes
            let failure: End? =
                if count < 0 {
                    .failed(code: decoder.failure.code, message: decoder.failure.message)
                } else {
                    nil
                }
            condition.withLock {
                if count > 0 {
                    decodedBytes += Int64(count)
                    lengths[index] = count
                    consumed[index] = bytes
                    nextToFill = (nextToFill + 1) % Self.bufferCount
                    filled += 1
                } else {
                    end = failure ?? .finished
                }
            }
            // Once the lock is let go: woken under it, the reader would block on it at once.
            condition.broadcast()
            if count <= 0 { return }
        }
    }
}
