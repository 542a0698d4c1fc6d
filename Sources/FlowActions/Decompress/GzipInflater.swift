import CArchive
import CDeflate
import CZlib
import Foundation

/// Inflates a gzip file with zlib, member after member (`cat a.gz b.gz` is one valid file, as
/// gzip reads it), so that each member's trailer is checked: its CRC-32 and its length
/// (ISIZE), as gzip and GNU tar check them. libarchive's gzip filter never checks them: data
/// corrupted where inflating still succeeds would extract wrong, silently (as with bsdtar).
///
/// Zero bytes after the last member are ignored (a tape's padding), as gzip does; any other
/// byte there must start a member.
///
/// zlib parses each member's header and trailer, but the CRC-32 of the inflated bytes is taken
/// here with libdeflate's (carry-less multiply, several times zlib's speed: zlib's was 4% of a
/// tar.gz's extraction, on the thread that inflates) and compared with the trailer's with its
/// length, as zlib would. A member whose header has its own CRC (FHCRC, which gzip never
/// writes) is checked by zlib, as before.
final class GzipInflater: StreamDecoder {
    /// Reads the file's bytes as they are: the raw format without filters.
    private let reader: OpaquePointer
    private var stream = z_stream()
    /// The member being inflated, from 1.
    private var member = 1
    /// Inflating has begun on `member`: the file may not end before its trailer.
    private var inMember = false
    /// The member's CRC-32 is taken here (`check`), not by zlib.
    private var checksHere = false
    /// CRC-32 of the member's bytes inflated so far, while `checksHere`.
    private var check: UInt32 = 0
    /// The last 8 bytes zlib consumed, the newest in the high byte: at a member's end, its
    /// trailer (CRC-32 and ISIZE, little-endian), whichever input blocks it came in.
    private var lastEight: UInt64 = 0
    private var ended = false
    private(set) var compressedBytes: Int64 = 0
    private(set) var failure: (code: Int32, message: String) = (0, "")

    /// `reader` reads the file (raw format, no filter), past its header; freed here. Nil if
    /// zlib cannot start (out of memory).
    init?(reader: OpaquePointer) {
        self.reader = reader
        guard flowrun_inflate_init_gzip(&stream) == Z_OK else {
            archive_read_free(reader)
            return nil
        }
    }

    /// An inflater reading the file `open` opens a reader on (`ArchiveSource.open`,
    /// `PipeSource.open`). Nil if it cannot be read or zlib cannot start.
    static func open(_ open: (OpaquePointer) -> Int32) -> GzipInflater? {
        guard let reader = archive_read_new() else { return nil }
        archive_read_support_format_raw(reader)
        var entry: OpaquePointer?
        guard open(reader) == ARCHIVE_OK, archive_read_next_header(reader, &entry) == ARCHIVE_OK else {
            archive_read_free(reader)
            return nil
        }
        return GzipInflater(reader: reader)
    }

    deinit {
        inflateEnd(&stream)
        archive_read_free(reader)
    }

    func decode(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        if ended { return 0 }
        stream.next_out = buffer.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(capacity)
        while stream.avail_out > 0 {
            if stream.avail_in == 0 {
                guard let more = nextInput() else { return -1 }
                if !more {
                    if inMember { return fail(EIO, "gzip data is truncated (member \(member) has no end)") }
                    ended = true
                    break
                }
            }
            if !inMember {
                // Between members: padding zeros are skipped; anything else starts a member.
                if stream.next_in.pointee == 0 {
                    stream.next_in += 1
                    stream.avail_in -= 1
                    compressedBytes += 1
                    continue
                }
                inMember = true
                startMember()
            }
            let before = stream.avail_in
            let input = stream.next_in!
            let output = stream.next_out!
            let status = inflate(&stream, Z_NO_FLUSH)
            let consumed = Int(before - stream.avail_in)
            compressedBytes += Int64(consumed)
            keepLastEight(of: UnsafeRawBufferPointer(start: input, count: consumed))
            if checksHere {
                let produced = stream.next_out! - output
                check = libdeflate_crc32(check, output, produced)
            }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                continue
            case Z_STREAM_END:
                if checksHere, let problem = trailerProblem {
                    return fail(EIO, "gzip data is corrupt (\(problem) in member \(member))")
                }
                member += 1
                inMember = false
                inflateReset(&stream)
            case Z_MEM_ERROR:
                return fail(ENOMEM, "out of memory")
            default:
                return fail(EIO, "gzip data is corrupt (\(problem))")
            }
        }
        return capacity - Int(stream.avail_out)
    }

    /// Lets zlib skip the CRC-32 of a member whose header has no CRC of its own (no FHCRC flag)
    /// and whose flags byte is in the input at hand: this one checks it (`trailerProblem`).
    /// zlib checks any other member, its header's CRC included.
    private func startMember() {
        check = 0
        let flags = stream.avail_in >= 4 ? stream.next_in[3] : 0xff
        checksHere = stream.avail_in >= 4 && flags & 0x02 == 0
        inflateValidate(&stream, checksHere ? 0 : 1)
    }

    /// Keeps the last 8 bytes of `consumed` in `lastEight` (shifting older ones out).
    private func keepLastEight(of consumed: UnsafeRawBufferPointer) {
        for byte in consumed.suffix(8) {
            lastEight = lastEight >> 8 | UInt64(byte) << 56
        }
    }

    /// What the member's trailer (its last 8 bytes, just consumed) disagrees with: its CRC-32
    /// first, then its length modulo 2^32, as zlib checks them; nil if both agree.
    private var trailerProblem: String? {
        if UInt32(truncatingIfNeeded: lastEight) != check { return "CRC32 mismatch" }
        if UInt32(truncatingIfNeeded: lastEight >> 32) != UInt32(truncatingIfNeeded: stream.total_out) {
            return "length (ISIZE) mismatch"
        }
        return nil
    }

    /// What zlib found wrong, in the member's words.
    private var problem: String {
        let text = stream.msg.map { String(cString: $0) } ?? "invalid data"
        switch text {
        case "incorrect data check": return "CRC32 mismatch in member \(member)"
        case "incorrect length check": return "length (ISIZE) mismatch in member \(member)"
        default: return "\(text) in member \(member)"
        }
    }

    /// Points zlib's input at the file's next block: false at the file's end, nil on a read error.
    private func nextInput() -> Bool? {
        var block: UnsafeRawPointer?
        var size = 0
        var offset: la_int64_t = 0
        while true {
            let status = archive_read_data_block(reader, &block, &size, &offset)
            if status == ARCHIVE_EOF { return false }
            guard status == ARCHIVE_OK, let block else {
                _ = fail(archive_errno(reader), archive_error_string(reader).map { String(cString: $0) } ?? "unknown error")
                return nil
            }
            guard size > 0 else { continue }
            stream.next_in = UnsafeMutablePointer(mutating: block.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(size)
            return true
        }
    }

    private func fail(_ code: Int32, _ message: String) -> Int {
        failure = (code, message)
        return -1
    }
}
