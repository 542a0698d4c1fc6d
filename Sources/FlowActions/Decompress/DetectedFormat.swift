import CArchive
import FlowModel

/// What libarchive found in the file, checked against a `format:` the task gives.
struct DetectedFormat {
    var format: Int32
    /// Compression filters, outermost last, without the final "none".
    var filters: [Int32]
    var description: String

    /// A compression filter libarchive applies.
    struct Filter {
        var code: Int32
        var name: String?
    }

    /// `filters`: those of the reader that decoded the archive, when another reader did
    /// (`DecodedStream`); else `reader`'s own.
    init(_ reader: OpaquePointer, filters: [Filter]? = nil) {
        format = archive_format(reader) & ARCHIVE_FORMAT_BASE_MASK
        let found = filters ?? Self.filters(of: reader)
        self.filters = found.map(\.code)
        let names = found.compactMap(\.name)
        let formatName =
            switch format {
            case ARCHIVE_FORMAT_RAW: "a single compressed file"
            case ARCHIVE_FORMAT_EMPTY: "empty"
            default: archive_format_name(reader).map { String(cString: $0) } ?? "an archive"
            }
        description = names.isEmpty ? formatName : "\(formatName) (\(names.joined(separator: ", ")))"
    }

    /// The reader's filters but "none", outermost last.
    static func filters(of reader: OpaquePointer) -> [Filter] {
        (0..<archive_filter_count(reader)).compactMap { index in
            let code = archive_filter_code(reader, index)
            guard code != ARCHIVE_FILTER_NONE else { return nil }
            return Filter(code: code, name: archive_filter_name(reader, index).map { String(cString: $0) })
        }
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
