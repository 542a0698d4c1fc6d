import CArchive
import FlowFiles
import Foundation

/// Feeds libarchive a regular archive file through read, skip and seek callbacks of ours, and
/// hashes its bytes (XXH3-128) in file order as they are read, on a thread of its own
/// (`BlockHashing`), so that the up-to-date bookkeeping need not read the archive again
/// (`StreamedDigests`). Blocks are read into a ring of buffers: a buffer is read into again
/// once libarchive has moved past it (its next read) and it was hashed.
///
/// libarchive reads a tar or a compressed stream front to back; a zip it reads from its end
/// (the central directory) and then from the start again. Bytes are hashed when a read
/// continues the hashed prefix; a skip from its end reads through instead (one read either
/// way); what libarchive never read (a tar's trailing zero blocks, a zip's central
/// directory) is read once at the end (`digest()`). A zip entry's compressed bytes that the
/// whole-entry inflater reads (`bytes(at:count:)`) are hashed from its read, and libarchive
/// skips them: each byte is read once.
///
/// - Warning: not thread-safe; one thread at a time calls the reader that reads it.
final class ArchiveSource {
    /// Bytes read per call. 64 KiB apart at most, cancel is seen between blocks.
    static let blockSize = 64 * 1024
    static let bufferCount = 8

    private let descriptor: Int32
    private let buffers: [UnsafeMutableRawPointer]
    /// The hashing ticket of each buffer's bytes (0: none), to wait for before reading into it.
    private var tickets = [Int](repeating: 0, count: bufferCount)
    /// The buffer libarchive was handed last.
    private var current = 0
    /// The file's identity when it was opened: its digest is noted only if it still has it.
    let identity: FileStatus
    private let size: Int64
    /// The file's size when it was opened.
    var fileSize: Int64 { size }
    /// Where the next read starts.
    private var position: Int64 = 0
    /// The bytes `[0, hashedUpTo)` are handed to `hashing`.
    private var hashedUpTo: Int64 = 0
    private let hashing = BlockHashing()
    /// The buffer `bytes(at:count:)` reads into, made at its first call, and the hashing
    /// ticket of its bytes.
    private var entryBuffer: UnsafeMutableRawPointer?
    private var entryTicket = 0

    /// `descriptor` is a regular file's, open for reading; the caller closes it after the
    /// readers that use this source are freed.
    init?(descriptor: Int32) {
        guard let identity = FileStatus.of(descriptor: descriptor) else { return nil }
        self.descriptor = descriptor
        self.identity = identity
        size = identity.size
        buffers = (0..<Self.bufferCount).map { _ in UnsafeMutableRawPointer.allocate(byteCount: Self.blockSize, alignment: 64) }
    }

    deinit {
        _ = hashing.finish()
        for buffer in buffers { buffer.deallocate() }
        entryBuffer?.deallocate()
    }

    /// Opens `reader` on this source, from the file's start; the source must outlive the
    /// reader's use.
    func open(_ reader: OpaquePointer) -> Int32 {
        position = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        archive_read_set_callback_data(reader, context)
        archive_read_set_read_callback(reader) { archive, data, block in
            guard let data, let block else { return -1 }
            return Unmanaged<ArchiveSource>.fromOpaque(data).takeUnretainedValue().read(archive, into: block)
        }
        archive_read_set_skip_callback(reader) { _, data, request in
            guard let data else { return 0 }
            return Unmanaged<ArchiveSource>.fromOpaque(data).takeUnretainedValue().skip(request)
        }
        archive_read_set_seek_callback(reader) { archive, data, offset, whence in
            guard let data else { return -1 }
            return Unmanaged<ArchiveSource>.fromOpaque(data).takeUnretainedValue().seek(archive, offset, whence)
        }
        return archive_read_open1(reader)
    }

    private func read(_ archive: OpaquePointer?, into block: UnsafeMutablePointer<UnsafeRawPointer?>) -> la_ssize_t {
        current = (current + 1) % Self.bufferCount
        let buffer = buffers[current]
        hashing.wait(for: tickets[current])
        tickets[current] = 0
        var count: Int
        repeat {
            count = pread(descriptor, buffer, Self.blockSize, off_t(position))
        } while count < 0 && errno == EINTR
        guard count >= 0 else {
            if let archive { flowrun_archive_set_error(archive, errno, "Error reading archive") }
            return -1
        }
        // The part of the block past the hashed prefix, when the block reaches it.
        let end = position + Int64(count)
        if position <= hashedUpTo && end > hashedUpTo {
            let skipped = Int(hashedUpTo - position)
            tickets[current] = hashing.add(buffer + skipped, count: count - skipped)
            hashedUpTo = end
        }
        position = end
        block.pointee = UnsafeRawPointer(buffer)
        return count
    }

    /// Up to `count` bytes (at most `WholeEntryInflater.maxCompressedSize`) at `offset`, for
    /// the whole-entry inflater, on the thread that reads the archive; valid until the next
    /// call. Bytes that continue the hashed prefix are hashed from here, so that libarchive
    /// skips them rather than reads them again (`skip`). Fewer bytes at the file's end; nil if
    /// a read failed (`errno` says why).
    func bytes(at offset: Int64, count: Int) -> UnsafeRawBufferPointer? {
        precondition(count <= WholeEntryInflater.maxCompressedSize)
        let buffer =
            entryBuffer ?? UnsafeMutableRawPointer.allocate(byteCount: WholeEntryInflater.maxCompressedSize, alignment: 64)
        entryBuffer = buffer
        hashing.wait(for: entryTicket)
        entryTicket = 0
        var done = 0
        var failure: Int32 = 0
        while done < count {
            let read = pread(descriptor, buffer + done, count - done, off_t(offset) + off_t(done))
            if read < 0 && errno == EINTR { continue }
            if read < 0 { failure = errno }
            guard read > 0 else { break }
            done += read
        }
        // What was read is hashed even when the read failed after it: the prefix stays whole.
        let end = offset + Int64(done)
        if offset <= hashedUpTo && end > hashedUpTo {
            let skipped = Int(hashedUpTo - offset)
            entryTicket = hashing.add(buffer + skipped, count: done - skipped)
            hashedUpTo = end
        }
        guard failure == 0 else {
            errno = failure
            return nil
        }
        return UnsafeRawBufferPointer(start: buffer, count: done)
    }

    /// At the hashed prefix's end, nothing is skipped: libarchive reads through, and the bytes
    /// are hashed. Behind it, up to its end.
    private func skip(_ request: la_int64_t) -> la_int64_t {
        let skipped = max(0, min(request, hashedUpTo - position))
        position += skipped
        return skipped
    }

    private func seek(_ archive: OpaquePointer?, _ offset: la_int64_t, _ whence: Int32) -> la_int64_t {
        let base: Int64 =
            switch whence {
            case SEEK_SET: 0
            case SEEK_CUR: position
            case SEEK_END: size
            default: -1
            }
        guard base >= 0, base + offset >= 0 else {
            if let archive { flowrun_archive_set_error(archive, EINVAL, "Error seeking") }
            return -1
        }
        position = base + offset
        return position
    }

    /// The archive's XXH3-128 in lowercase hex, once it was read: what libarchive left unread is
    /// read now. Nil if the file changed since it was opened (its identity differs) or cannot
    /// be read.
    func digest() -> String? {
        let hasher = hashing.finish()
        let buffer = buffers[0]
        while hashedUpTo < size {
            let count = pread(descriptor, buffer, min(Self.blockSize, Int(size - hashedUpTo)), off_t(hashedUpTo))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            hasher.update(UnsafeRawBufferPointer(start: buffer, count: count))
            hashedUpTo += Int64(count)
        }
        guard FileStatus.of(descriptor: descriptor) == identity else { return nil }
        return hasher.finalize()
    }
}
