import CArchive
import Foundation

/// Reads an archive's entries and their data on a thread of its own, so that decoding a zip's
/// entries (inflate runs inside libarchive's reader) and writing the files take a core each, as
/// `DecodedStream` does for a compressed tar. The read thread copies each data block into a
/// bounded ring of buffers and passes a copy of each header (`archive_entry_clone`); the
/// extracting thread takes them in order (`nextHeader`, `nextBlock`) and writes.
///
/// Memory is the ring's and at most `queueLimit` headers, whatever the archive holds: the read
/// thread waits for room. An entry whose data the extracting side skips is read all the same
/// (its blocks are dropped). A read error reaches the extracting side in order, with
/// libarchive's message, after everything read before it.
///
/// A zip's deflated entries are inflated here by `WholeEntryInflater` (libdeflate, a third of
/// zlib's CPU) rather than by libarchive, once the extracting side has checked the zip's
/// headers and handed over its `ZipDirectory` (`useZipDirectory`): libarchive still reads
/// every header (names, modes, times, links) and skips the data; the read thread waits for the
/// directory after the first header. An entry that is not where the directory says, or too
/// large to inflate whole, is read by libarchive as before (`WholeEntries`).
///
/// - Warning: `@unchecked Sendable`: the queue is guarded by `condition`; the reader is used by
///   the read thread alone from `init` until `stop()` returns.
final class EntryReadAhead: @unchecked Sendable {
    static let bufferSize = 256 * 1024
    static let bufferCount = 8
    /// Buffers a zip entry is inflated into whole (`WholeEntryInflater.maxSize` each), after the
    /// ring's: the extracting side writes from them, without a copy into the ring. Their pages
    /// are touched only by a zip's entries.
    static let wholeBufferCount = 2
    /// Items waiting at most: many empty files must not queue without bound.
    static let queueLimit = 1024

    /// A header taken by `nextHeader`.
    enum Header {
        /// A copy of the entry, the extracting side's until its next call; libarchive's warning
        /// about it (a name it could not convert).
        case entry(OpaquePointer, warning: String?)
        case end
        case failed(String)
    }

    /// A data block taken by `nextBlock`.
    enum Block {
        /// The bytes, valid until the next call.
        case data(UnsafeRawPointer?, count: Int, offset: Int64)
        case end
        case failed(String)
    }

    private enum Item {
        case header(OpaquePointer, warning: String?)
        case block(buffer: Int, count: Int, offset: Int64)
        case dataEnd
        case dataFailed(String)
        case end
        case headerFailed(String)
    }

    private let reader: OpaquePointer
    private let filters: [DetectedFormat.Filter]?
    /// The archive file's source, for `WholeEntryInflater`; nil when the archive is not a file.
    private let source: ArchiveSource?
    private let buffers: [UnsafeMutableRawPointer]
    private let condition = NSCondition()
    /// Guarded by `condition`, as everything below. Items with the compressed bytes read when
    /// each was.
    private var queue: [(item: Item, compressed: Int64)] = []
    private var head = 0
    private var freeBuffers: [Int]
    private var freeWholeBuffers: [Int]
    /// The buffer the extracting side was handed last.
    private var heldBuffer: Int?
    /// The header the extracting side was handed last, freed at its next header.
    private var heldEntry: OpaquePointer?
    /// The extracting side is inside an entry's data (between its header and the data's end).
    private var inData = false
    private var format: DetectedFormat?
    private var compressedBytesNow: Int64 = 0
    private var stopped = false
    private var threadEnded = false
    /// A zip's directory, once the extracting side checked it (nil inside: not a zip, or none).
    private var zipDirectory: ZipDirectory??

    /// `reader` is open, no header read yet; `filters` as for `DetectedFormat`; `source` the
    /// archive file's, which `reader` reads (on the read thread alone, from here on). The read
    /// thread starts here.
    init(reader: OpaquePointer, filters: [DetectedFormat.Filter]?, source: ArchiveSource?) {
        self.reader = reader
        self.filters = filters
        self.source = source
        buffers =
            (0..<Self.bufferCount).map { _ in UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 64) }
            + (0..<Self.wholeBufferCount).map { _ in UnsafeMutableRawPointer.allocate(byteCount: WholeEntryInflater.maxSize, alignment: 64) }
        freeBuffers = Array((0..<Self.bufferCount).reversed())
        freeWholeBuffers = Array(Self.bufferCount..<Self.bufferCount + Self.wholeBufferCount)
        // Names convert as on the extracting thread (`ThreadLocale`).
        WorkerThread.start(
            named: "flowrun.read", condition: condition, work: { [self] in ThreadLocale.withUTF8 { readAll() } },
            ended: { [self] in threadEnded = true })
    }

    deinit {
        stop()
        for buffer in buffers { buffer.deallocate() }
    }

    /// Ends the read thread (at most one block's reading later) and frees what it queued. The
    /// reader is the caller's again when this returns.
    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
            while !threadEnded { condition.wait() }
            for (item, _) in queue[head...] {
                if case .header(let entry, _) = item { archive_entry_free(entry) }
            }
            queue = []
            head = 0
            if let heldEntry { archive_entry_free(heldEntry) }
            heldEntry = nil
        }
    }

    /// A zip's checked directory (`ZipHeaderCheck`), or nil if there is none: the read thread
    /// waits for it after a zip's first header.
    func useZipDirectory(_ directory: ZipDirectory?) {
        condition.withLock {
            zipDirectory = .some(directory)
            condition.broadcast()
        }
    }

    /// What libarchive found, once `nextHeader` returned for the first time.
    var detectedFormat: DetectedFormat? { condition.withLock { format } }

    /// Compressed bytes read up to the item the extracting side took last.
    var compressedBytes: Int64 { condition.withLock { compressedBytesNow } }

    /// The next entry's header; the rest of the current entry's data is dropped. A cancel while
    /// waiting gives `.failed`.
    func nextHeader(isCancelled: () -> Bool) -> Header {
        condition.lock()
        defer { condition.unlock() }
        releaseHeld()
        compact()
        if let heldEntry { archive_entry_free(heldEntry) }
        heldEntry = nil
        while true {
            guard let item = take(isCancelled: isCancelled) else { return .failed("cancelled") }
            switch item {
            case .header(let entry, let warning):
                heldEntry = entry
                inData = true
                return .entry(entry, warning: warning)
            case .end: return .end
            case .headerFailed(let message): return .failed(message)
            case .block(let buffer, _, _): release(buffer)
            case .dataEnd, .dataFailed: inData = false
            }
        }
    }

    /// The current entry's next data block; `.end` after its last one.
    func nextBlock(isCancelled: () -> Bool) -> Block {
        condition.lock()
        defer { condition.unlock() }
        releaseHeld()
        compact()
        guard inData else { return .end }
        guard let item = take(isCancelled: isCancelled) else { return .failed("cancelled") }
        switch item {
        case .block(let buffer, let count, let offset):
            heldBuffer = buffer
            return .data(UnsafeRawPointer(buffers[buffer]), count: count, offset: offset)
        case .dataEnd:
            inData = false
            return .end
        case .dataFailed(let message):
            inData = false
            return .failed(message)
        case .header, .end, .headerFailed:
            // Not reached: the read thread ends every entry's data before the next header. Put
            // back for `nextHeader`.
            head -= 1
            inData = false
            return .end
        }
    }

    /// Under the lock: the buffer handed out last goes back to the read thread.
    private func releaseHeld() {
        guard let heldBuffer else { return }
        release(heldBuffer)
        self.heldBuffer = nil
        condition.broadcast()
    }

    /// Under the lock: `buffer` is free again, in its own list.
    private func release(_ buffer: Int) {
        if buffer < Self.bufferCount { freeBuffers.append(buffer) } else { freeWholeBuffers.append(buffer) }
    }

    /// Under the lock: the next item, waiting a tenth of a second at a time so that a cancel is
    /// seen while the read thread is slow; nil on a cancel.
    private func take(isCancelled: () -> Bool) -> Item? {
        while head == queue.count {
            if isCancelled() || threadEnded { return nil }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
        }
        let (item, compressed) = queue[head]
        head += 1
        compressedBytesNow = compressed
        condition.broadcast()
        return item
    }

    /// Under the lock: drops what was taken now and then, so that the array does not grow with
    /// the entries.
    private func compact() {
        if head >= 256 && head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    // MARK: - The read thread

    /// Queues `item`, waiting for room first; false once stopped. `compressed`: where the
    /// compressed bytes of the item end, when libarchive has not read them.
    private func push(_ item: Item, compressed: Int64 = 0) -> Bool {
        condition.withLock {
            while !stopped && queue.count - head >= Self.queueLimit { condition.wait() }
            guard !stopped else { return false }
            queue.append((item, max(compressed, archive_filter_bytes(reader, -1))))
            condition.broadcast()
            return true
        }
    }

    /// A free buffer, waiting for one; nil once stopped.
    private func freeBuffer() -> Int? {
        condition.withLock {
            while !stopped && freeBuffers.isEmpty { condition.wait() }
            return stopped ? nil : freeBuffers.removeLast()
        }
    }

    /// The directory handed over, after a zip's first header; nil once stopped, or if there is none.
    private func waitForZipDirectory() -> ZipDirectory? {
        condition.withLock {
            while !stopped && zipDirectory == nil { condition.wait() }
            return zipDirectory ?? nil
        }
    }

    private func readAll() {
        var first = true
        var whole: (entries: WholeEntries, inflater: WholeEntryInflater)?
        while true {
            var entryPointer: OpaquePointer?
            let status = archive_read_next_header(reader, &entryPointer)
            var zipStarts = false
            if first {
                first = false
                let found = DetectedFormat(reader, filters: filters)
                condition.withLock { format = found }
                zipStarts = found.isZip
            }
            if status == ARCHIVE_EOF {
                if let source, let truncated = TruncatedTar.failure(reader, fileSize: source.fileSize) {
                    _ = push(.headerFailed(truncated))
                } else {
                    _ = push(.end)
                }
                return
            }
            // `ARCHIVE_RETRY` (a damaged tar header) is a failure, as in `ArchiveInput.nextHeader`.
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry = entryPointer, let copy = archive_entry_clone(entry) else {
                _ = push(.headerFailed(message()))
                return
            }
            guard push(.header(copy, warning: status == ARCHIVE_WARN ? message() : nil)) else {
                archive_entry_free(copy)
                return
            }
            // The extracting side checks the zip's headers once it has the first.
            if zipStarts, let source, let directory = waitForZipDirectory(), let inflater = WholeEntryInflater(source: source) {
                whole = (WholeEntries(directory: directory), inflater)
            }
            if let inflater = whole?.inflater, let listed = whole?.entries.next(for: entry, at: archive_read_header_position(reader)) {
                guard inflateWhole(listed, with: inflater) else { return }
            } else if !Self.hasData(entry) {
                guard push(.dataEnd) else { return }
            } else {
                guard readData() else { return }
            }
        }
    }

    /// An entry inflated here into a whole buffer, queued as one block; false once stopped.
    /// libarchive skips its data at the next header.
    private func inflateWhole(_ entry: ZipDirectory.Entry, with inflater: WholeEntryInflater) -> Bool {
        let end = entry.dataOffset + Int64(entry.compressedSize)
        let free: Int? = condition.withLock {
            while !stopped && freeWholeBuffers.isEmpty { condition.wait() }
            return stopped ? nil : freeWholeBuffers.removeLast()
        }
        guard let index = free else { return false }
        switch inflater.inflate(entry, into: buffers[index]) {
        case .failed(let message):
            condition.withLock { freeWholeBuffers.append(index) }
            return push(.dataFailed(message), compressed: end)
        case .data(let count):
            guard push(.block(buffer: index, count: count, offset: 0), compressed: end) else { return false }
            return push(.dataEnd, compressed: end)
        }
    }

    /// Whether an entry's data is read: not when its header says it is empty, as bsdtar's
    /// `archive_read_extract` does. Reading it anyway failed a zip's empty LZMA entry (libarchive:
    /// "lzma unknown error 10", which also ends the reader) that bsdtar extracts.
    static func hasData(_ entry: OpaquePointer) -> Bool {
        archive_entry_size_is_set(entry) == 0 || archive_entry_size(entry) > 0
    }

    /// The current entry's data blocks, then its end or its failure; false once stopped.
    private func readData() -> Bool {
        while true {
            var block: UnsafeRawPointer?
            var size = 0
            var offset: la_int64_t = 0
            let status = archive_read_data_block(reader, &block, &size, &offset)
            if status == ARCHIVE_EOF { return push(.dataEnd) }
            // The next header may still be readable (a zip's entries are found by its directory).
            guard status == ARCHIVE_OK else { return push(.dataFailed(message())) }
            if let block { guard queueBlock(block, count: size, offset: offset) else { return false } }
        }
    }

    /// `block`'s bytes copied into the ring, a buffer at a time; false once stopped.
    private func queueBlock(_ block: UnsafeRawPointer, count: Int, offset: Int64) -> Bool {
        var done = 0
        while done < count {
            guard let index = freeBuffer() else { return false }
            let part = min(Self.bufferSize, count - done)
            buffers[index].copyMemory(from: block + done, byteCount: part)
            guard push(.block(buffer: index, count: part, offset: offset + Int64(done))) else { return false }
            done += part
        }
        return true
    }

    private func message() -> String {
        archive_error_string(reader).map { String(cString: $0) } ?? "unknown error"
    }
}
