import CDeflate
import Foundation

/// Inflates a zip entry's data whole with libdeflate, and checks its CRC-32: a third of
/// zlib's time, which libarchive inflates a zip with (the read thread's work, and the most of
/// an extraction's). The entry's compressed bytes are read at once and inflated into one
/// buffer, so only entries of at most `maxSize` bytes (`ZipDirectory.Entry.isWhole`); memory is
/// the source's buffer of compressed bytes and the caller's, whose pages are touched only as far
/// as the largest entry needs. The compressed bytes come from `ArchiveSource`, which hashes them
/// from this read: libarchive skips them.
///
/// The data must inflate to exactly the size the central directory gives, with its CRC-32;
/// anything else fails the entry, as libarchive would (its words for a bad CRC).
final class WholeEntryInflater {
    static let maxSize = 4 << 20
    /// Deflate can grow data that does not compress, by a few bytes a block.
    static let maxCompressedSize = maxSize + maxSize / 64

    enum Inflated {
        /// The entry's bytes, in the caller's buffer.
        case data(count: Int)
        case failed(String)
    }

    private let source: ArchiveSource
    private let decompressor: OpaquePointer

    /// `source`: the zip file's, which the caller's thread reads. Nil out of memory.
    init?(source: ArchiveSource) {
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        self.source = source
        self.decompressor = decompressor
    }

    deinit {
        libdeflate_free_decompressor(decompressor)
    }

    /// Inflates `entry` into `output`, of `maxSize` bytes.
    func inflate(_ entry: ZipDirectory.Entry, into output: UnsafeMutableRawPointer) -> Inflated {
        guard entry.isWhole else { return .failed("not inflated whole") }
        let compressed = Int(entry.compressedSize), size = Int(entry.size)
        guard let input = source.bytes(at: entry.dataOffset, count: compressed) else {
            return .failed("Error reading archive: \(FileTree.errorText())")
        }
        guard input.count == compressed else { return .failed("Truncated ZIP file data") }
        // As libarchive: the deflate data must end where the directory's compressed size does.
        var consumed = 0
        switch libdeflate_deflate_decompress_ex(decompressor, input.baseAddress, compressed, output, size, &consumed, nil) {
        case LIBDEFLATE_SUCCESS:
            guard consumed == compressed else {
                return .failed("ZIP compressed data is wrong size (read \(consumed), expected \(compressed))")
            }
        case LIBDEFLATE_SHORT_OUTPUT: return .failed("ZIP data inflates to fewer bytes than its header says (\(size))")
        case LIBDEFLATE_INSUFFICIENT_SPACE: return .failed("ZIP data inflates to more bytes than its header says (\(size))")
        default: return .failed("ZIP decompression failed (the deflate data is corrupt)")
        }
        let crc = UInt32(libdeflate_crc32(0, output, size))
        guard crc == entry.crc else {
            return .failed("ZIP bad CRC: 0x\(String(crc, radix: 16)) should be 0x\(String(entry.crc, radix: 16))")
        }
        return .data(count: size)
    }
}
