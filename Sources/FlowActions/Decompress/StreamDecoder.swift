import CArchive

/// What a `DecodedStream` runs on its decode thread: a decoder of the compressed file.
protocol StreamDecoder: AnyObject {
    /// Decodes the next bytes into `buffer`: their count (at most `capacity`), 0 at the end,
    /// or -1 on an error, described by `failure`.
    func decode(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int
    /// The error after `decode` returned -1: an errno-like code and the message.
    var failure: (code: Int32, message: String) { get }
    /// Compressed bytes read from the file so far.
    var compressedBytes: Int64 { get }
}

/// libarchive's decoder: a reader of the raw format with the archive's filters, past its first
/// header; freed here.
final class ArchiveDecoder: StreamDecoder {
    private let reader: OpaquePointer

    init(reader: OpaquePointer) { self.reader = reader }

    deinit { archive_read_free(reader) }

    func decode(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        archive_read_data(reader, buffer, capacity)
    }

    var failure: (code: Int32, message: String) {
        (archive_errno(reader), archive_error_string(reader).map { String(cString: $0) } ?? "unknown error")
    }

    var compressedBytes: Int64 { archive_filter_bytes(reader, -1) }
}
