import CArchive

/// A tar file whose last header is cut short. libarchive (3.6) reports its end, not an error,
/// once the whole file was read ahead before that header (a small file, read whole while the
/// formats bid): the run was green with the entries after the cut missing, where bsdtar says
/// "Truncated tar archive". A tar ends at a header's start with nothing after it, or at its
/// zero blocks (512 bytes or more); fewer bytes left there are a cut header.
enum TruncatedTar {
    static let blockSize: Int64 = 512

    /// The failure to report at the reader's end of a tar read from a file of `fileSize`
    /// bytes, with no filter; nil if it ended where a tar may end.
    static func failure(_ reader: OpaquePointer, fileSize: Int64) -> String? {
        guard archive_format(reader) & ARCHIVE_FORMAT_BASE_MASK == ARCHIVE_FORMAT_TAR, archive_filter_count(reader) == 1 else {
            return nil
        }
        let left = fileSize - archive_read_header_position(reader)
        return left > 0 && left < blockSize ? "Truncated tar archive (a header cut short at byte \(fileSize))" : nil
    }
}
