import CArchive
import FlowModel

/// What libarchive found in the file, checked against a `format:` the task gives.
struct DetectedFormat {
    var format: Int32
    /// Compression filters, outermost last, without the final "none".
    var filters: [Int32]
    var description: String

    init(_ reader: OpaquePointer) {
        format = archive_format(reader) & ARCHIVE_FORMAT_BASE_MASK
        let count = archive_filter_count(reader)
        filters = (0..<count).map { archive_filter_code(reader, $0) }.filter { $0 != ARCHIVE_FILTER_NONE }
        let names = (0..<count).map { archive_filter_code(reader, $0) == ARCHIVE_FILTER_NONE ? nil : archive_filter_name(reader, $0) }
            .compactMap { $0.map { String(cString: $0) } }
        let formatName =
            switch format {
            case ARCHIVE_FORMAT_RAW: "a single compressed file"
            case ARCHIVE_FORMAT_EMPTY: "empty"
            default: archive_format_name(reader).map { String(cString: $0) } ?? "an archive"
            }
        description = names.isEmpty ? formatName : "\(formatName) (\(names.joined(separator: ", ")))"
    }

    var isZip: Bool { format == ARCHIVE_FORMAT_ZIP }
    var isSingleFile: Bool { format == ARCHIVE_FORMAT_RAW }
    /// A compressed stream of nothing (`gzip < /dev/null`): libarchive reads it as an empty archive.
    var isEmptyCompressedFile: Bool { format == ARCHIVE_FORMAT_EMPTY && !filters.isEmpty }

    func matches(_ expected: ArchiveFormat) -> Bool {
        switch expected {
        case .tar: format == ARCHIVE_FORMAT_TAR && filters.isEmpty
        case .tarGz: format == ARCHIVE_FORMAT_TAR && filters == [ARCHIVE_FILTER_GZIP]
        case .tarBz2: format == ARCHIVE_FORMAT_TAR && filters == [ARCHIVE_FILTER_BZIP2]
        case .tarXz: format == ARCHIVE_FORMAT_TAR && filters == [ARCHIVE_FILTER_XZ]
        case .tarZst: format == ARCHIVE_FORMAT_TAR && filters == [ARCHIVE_FILTER_ZSTD]
        case .zip: format == ARCHIVE_FORMAT_ZIP && filters.isEmpty
        case .gz: (isSingleFile || isEmptyCompressedFile) && !filters.isEmpty && filters.allSatisfy { $0 == ARCHIVE_FILTER_GZIP }
        }
    }
}
