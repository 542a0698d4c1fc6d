import CArchive
import FlowFiles
import Foundation

/// The archive reader an extraction reads entries from, and where it gets its bytes: a
/// compressed regular file is decoded on a thread of its own (`DecodedStream`); another regular
/// file is read directly (`ArchiveSource`, which hashes it as it goes); a pipe or a FIFO through
/// `PipeSource`. The entries of a file that is not decoded (a zip, a tar) are read on a thread
/// of their own (`EntryReadAhead`); the others on the caller's.
final class ArchiveInput {
    /// The reader of entries; freed here.
    private let reader: OpaquePointer
    /// The decoding reader's filters, when another reader decodes; nil: `reader`'s own.
    private(set) var filters: [DetectedFormat.Filter]?
    private let descriptor: Int32
    private var source: ArchiveSource?
    private var pipe: PipeSource?
    private var decoded: DecodedStream?
    private var readAhead: EntryReadAhead?

    /// `formats` registers the formats the reader may find (no filters: they are set here).
    init(path: String, formats: (OpaquePointer) -> Void, isCancelled: @escaping () -> Bool) throws(ActionFailure) {
        // Opened here, not by archive_read_open_filename, whose close reads a pipe to its end:
        // a cancelled extraction from an endless pipe would never finish. Without waiting: a
        // FIFO's open(2) waits for a writer, where no cancel reaches it (Ctrl-C left the run
        // waiting out the grace, and the staging folder behind). The flag is then cleared, and
        // `PipeSource` waits for the writer in poll(2) instead, as bsdtar waits in open(2).
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw ActionFailure("cannot read '\(path)': \(FileTree.errorText())") }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let failure = ActionFailure("cannot read '\(path)': \(FileTree.errorText())")
            close(descriptor)
            throw failure
        }
        guard let reader = archive_read_new() else {
            close(descriptor)
            throw ActionFailure("out of memory")
        }
        self.descriptor = descriptor
        self.reader = reader
        formats(reader)
        let opened: Int32
        if let source = ArchiveSource(descriptor: descriptor) {
            self.source = source
            if let decoded = Self.decoder(source, isCancelled: isCancelled) {
                self.decoded = decoded.stream
                filters = decoded.filters
                decoded.stream.start()
                opened = decoded.stream.open(reader)
            } else {
                archive_read_support_filter_all(reader)
                opened = source.open(reader)
                if opened == ARCHIVE_OK { readAhead = EntryReadAhead(reader: reader, filters: nil, source: source) }
            }
        } else {
            let pipe = PipeSource(descriptor: descriptor, isCancelled: isCancelled)
            self.pipe = pipe
            if pipe.startsWithGzip(), let inflater = GzipInflater.open(pipe.open) {
                let stream = DecodedStream(decoder: inflater, atEnd: false, isCancelled: isCancelled)
                decoded = stream
                filters = [DetectedFormat.Filter(code: ARCHIVE_FILTER_GZIP, name: "gzip")]
                stream.start()
                opened = stream.open(reader)
            } else {
                archive_read_support_filter_all(reader)
                opened = pipe.open(reader)
            }
        }
        guard opened == ARCHIVE_OK else {
            throw ActionFailure("cannot read '\(path)': \(archive_error_string(reader).map { String(cString: $0) } ?? "unknown error")")
        }
    }

    deinit {
        // The read and decode threads first: they use the reader and read the file.
        readAhead?.stop()
        decoded?.stop()
        archive_read_free(reader)
        decoded = nil
        close(descriptor)
    }

    /// A decoder on the file if it is compressed: a reader of the raw format with every filter,
    /// past its first header. Nil for a file libarchive finds no filter in (a tar, a zip), or
    /// one it cannot start decoding: the reader of entries then reads the file itself, and
    /// fails as it always did.
    private static func decoder(
        _ source: ArchiveSource, isCancelled: @escaping () -> Bool
    ) -> (stream: DecodedStream, filters: [DetectedFormat.Filter])? {
        guard let decoder = archive_read_new() else { return nil }
        archive_read_support_filter_all(decoder)
        archive_read_support_format_raw(decoder)
        archive_read_support_format_empty(decoder)  // a compressed stream of nothing
        var entry: OpaquePointer?
        let status = source.open(decoder) == ARCHIVE_OK ? archive_read_next_header(decoder, &entry) : ARCHIVE_FATAL
        let filters = DetectedFormat.filters(of: decoder)
        guard status == ARCHIVE_OK || status == ARCHIVE_EOF, !filters.isEmpty else {
            archive_read_free(decoder)
            return nil
        }
        if filters.map(\.code) == [ARCHIVE_FILTER_GZIP] {
            archive_read_free(decoder)
            guard let inflater = GzipInflater.open(source.open) else { return nil }
            return (DecodedStream(decoder: inflater, atEnd: false, isCancelled: isCancelled), filters)
        }
        return (DecodedStream(decoder: ArchiveDecoder(reader: decoder), atEnd: status == ARCHIVE_EOF, isCancelled: isCancelled), filters)
    }

    /// Decodes the file to its end once the entries were read, and says what failed there (a
    /// gzip trailer's checksum): nil if nothing did, or nothing is decoded here.
    func finishDecoding(isCancelled: () -> Bool) -> String? {
        decoded?.finish(isCancelled: isCancelled)
    }

    /// The decoder's failure, once decoding failed: the message a failed read of the entries
    /// reader then carries.
    var decodingFailure: String? {
        decoded?.failureMessage
    }

    /// The next entry's header (the entry is valid until the next call); the rest of the
    /// current entry's data is skipped.
    func nextHeader(isCancelled: () -> Bool) -> EntryReadAhead.Header {
        if let readAhead { return readAhead.nextHeader(isCancelled: isCancelled) }
        var entry: OpaquePointer?
        let status = archive_read_next_header(reader, &entry)
        if status == ARCHIVE_EOF {
            // Read from the file itself (not decoded): its size tells a cut header (`TruncatedTar`).
            if decoded == nil, let source, let truncated = TruncatedTar.failure(reader, fileSize: source.fileSize) {
                return .failed(truncated)
            }
            // From a pipe read to its end, the bytes it gave are the tar's length.
            if decoded == nil, let pipe, pipe.reachedEnd, let truncated = TruncatedTar.failure(reader, fileSize: pipe.bytesRead) {
                return .failed(truncated)
            }
            // A compressed tar's own length is the decoded stream's, known once decoded to its
            // end (what decoding to the end finds, a bad trailer, `finishDecoding` says).
            if let decoded, decoded.finish(isCancelled: isCancelled) == nil, let length = decoded.decodedLength,
                let truncated = TruncatedTar.failure(reader, fileSize: length, decompressed: true)
            {
                return .failed(truncated)
            }
            return .end
        }
        // Not `>= ARCHIVE_WARN`: `ARCHIVE_RETRY` (a damaged tar header, which bsdtar skips) is a
        // failure, as GNU tar makes it, not an entry.
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else { return .failed(message) }
        return .entry(entry, warning: status == ARCHIVE_WARN ? message : nil)
    }

    /// The current entry's next data block (valid until the next call); `.end` after its last.
    func nextBlock(isCancelled: () -> Bool) -> EntryReadAhead.Block {
        if let readAhead { return readAhead.nextBlock(isCancelled: isCancelled) }
        var buffer: UnsafeRawPointer?
        var size = 0
        var offset: la_int64_t = 0
        let status = archive_read_data_block(reader, &buffer, &size, &offset)
        if status == ARCHIVE_EOF { return .end }
        guard status == ARCHIVE_OK else { return .failed(message) }
        return .data(buffer, count: size, offset: offset)
    }

    /// A zip's checked directory, from which the read thread inflates entries itself
    /// (`EntryReadAhead`); nil if there is none.
    func useZipDirectory(_ directory: ZipDirectory?) {
        readAhead?.useZipDirectory(directory)
    }

    /// What libarchive found, once `nextHeader` returned.
    var detectedFormat: DetectedFormat {
        readAhead?.detectedFormat ?? DetectedFormat(reader, filters: filters)
    }

    /// Compressed bytes read up to the data block taken last.
    var compressedBytes: Int64 {
        readAhead?.compressedBytes ?? decoded?.compressedBytes ?? archive_filter_bytes(reader, -1)
    }

    private var message: String {
        archive_error_string(reader).map { String(cString: $0) } ?? "unknown error"
    }

    /// The archive's XXH3-128 (lowercase hex) and its identity, once every entry was read; nil
    /// for a pipe, or a file that changed while it was read.
    func digest() -> (digest: String, identity: FileStatus)? {
        readAhead?.stop()
        decoded?.stop()
        guard let source, let digest = source.digest() else { return nil }
        return (digest, source.identity)
    }
}
