import CArchive

/// A tar file whose last header is cut short. libarchive (3.6) reports its end, not an error,
/// once the whole file was read ahead before that header (a small file, read whole while the
/// formats bid): the run was green with the entries after the cut missing, where bsdtar says
/// "Truncated tar archive". A tar ends at a header's start with nothing after it, or at its
/// zero blocks (512 bytes or more); fewer bytes left there are a cut header.
///
/// The same holds of a compressed tar whose compressed stream is whole but whose tar inside is
/// cut (a .tar.gz made of a cut .tar): its decoded stream is read whole ahead the same way, and
/// its length is what the check counts from.
enum TruncatedTar {
    static let blockSize: Int64 = 512

    /// The failure to report at the reader's end of a tar of `fileSize` bytes, read by a reader
    /// with no filter (`decompressed`: from a decoded stream of that length); nil if it ended
    /// where a tar may end.
    static func failure(_ reader: OpaquePointer, fileSize: Int64, decompressed: Bool = false) -> String? {
        guard archive_format(reader) & ARCHIVE_FORMAT_BASE_MASK == ARCHIVE_FORMAT_TAR, archive_filter_count(reader) == 1 else {
            return nil
        }
        let left = fileSize - archive_read_header_position(reader)
        guard left > 0 && left < blockSize else { return nil }
        return "Truncated tar archive (a header cut short at byte \(fileSize)\(decompressed ? " of the decompressed tar" : ""))"
    }
}
