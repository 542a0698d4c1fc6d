import CDeflate
import Foundation

/// Inflates a zip entry's data whole with libdeflate, and checks its CRC-32: a third of
/// zlib's time, which libarchive inflates a zip with (the read thread's work, and the most of
/// an extraction's). The entry's compressed bytes are read at once and inflated into one
/// buffer, so only entries of at most `maxSize` bytes (`ZipDirectory.Entry.isWhole`); memory is
/// the input buffer and the caller's, whose pages are touched only as far as the largest entry
/// needs.
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

    private let descriptor: Int32
    private let decompressor: OpaquePointer
    private let input = UnsafeMutableRawPointer.allocate(byteCount: maxCompressedSize, alignment: 64)

    /// `descriptor`: the zip file's, open for reading while this lives. Nil out of memory.
    init?(descriptor: Int32) {
        guard let decompressor = libdeflate_alloc_decompressor() else {
            input.deallocate()
            return nil
        }
        self.descriptor = descriptor
        self.decompressor = decompressor
    }

    deinit {
        libdeflate_free_decompressor(decompressor)
        input.deallocate()
    }

    /// Inflates `entry` into `output`, of `maxSize` bytes.
    func inflate(_ entry: ZipDirectory.Entry, into output: UnsafeMutableRawPointer) -> Inflated {
        guard entry.isWhole else { return .failed("not inflated whole") }
        let compressed = Int(entry.compressedSize), size = Int(entry.size)
        var done = 0
        while done < compressed {
            let count = pread(descriptor, input + done, compressed - done, off_t(entry.dataOffset) + off_t(done))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return .failed(count == 0 ? "Truncated ZIP file data" : "Error reading archive: \(FileTree.errorText())") }
            done += count
        }
        // As libarchive: the deflate data must end where the directory's compressed size does.
        var consumed = 0
        switch libdeflate_deflate_decompress_ex(decompressor, input, compressed, output, size, &consumed, nil) {
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
