import Foundation
import Testing

@testable import FlowActions

/// Corrupt data fails the extraction, as it fails GNU tar and gzip, and leaves `to` as it was:
/// a gzip member's CRC-32 and length (its trailer) are checked, which libarchive (and so
/// bsdtar) does not; a checksum at the end of a bzip2, xz or zstd stream, or a zip entry's, too.
@Suite struct DecompressGzipCheckTests {
    /// Stored (level 0) deflate blocks keep the data as it is: bytes flipped in it still inflate,
    /// and only the trailer's CRC-32 tells. The tar is larger than the decode ring, so that the
    /// tar's end is read before the trailer is decoded.
    static let archives = """
        import bz2, lzma, random
        random.seed(7)
        data = random.randbytes(3 << 20)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode='w') as t:
            for n, d in [('big.bin', data), ('after.txt', b'x')]:
                i = tarfile.TarInfo(n); i.size = len(d); t.addfile(i, io.BytesIO(d))
        tar = buf.getvalue()
        open('t.tar', 'wb').write(tar)
        def save(name, blob, flips):
            b = bytearray(blob)
            for k in flips: b[k] ^= 0x5a
            open(name, 'wb').write(b)
        def payload(blob):  # 200 bytes of big.bin's data, where the compressed file has them as they are
            at = next(a for a in (blob.find(data[s:s + 200]) for s in range(1000000, 1200000, 997)) if a > 0)
            return range(at, at + 200)
        stored = gzip.compress(tar, 0)
        save('payload.tar.gz', stored, payload(stored))
        save('crc.tar.gz', stored, [len(stored) - 8])
        save('isize.tar.gz', stored, [len(stored) - 4])
        single = gzip.compress(data, 0)
        save('payload.bin.gz', single, payload(single))
        # Two members, as `cat a.gz b.gz` makes: valid, the tar split across them.
        half = len(tar) // 2
        save('two.tar.gz', gzip.compress(tar[:half], 1) + gzip.compress(tar[half:], 6), [])
        save('two.txt.gz', gzip.compress(b'first\\n') + gzip.compress(b'second\\n') + bytes(512), [])
        first = gzip.compress(tar[:half], 0)
        both = first + gzip.compress(tar[half:], 0)
        save('second.tar.gz', both, [len(both) - 8])
        # A member whose trailer straddles the 64 KiB blocks the file is read in
        # (ArchiveSource.blockSize): its CRC-32 in one block, its ISIZE in the next.
        def member(n): return gzip.compress(bytes(i % 251 for i in range(n)), 0, mtime=0)
        n = next(n for n in range(65400, 65536) if 65536 < len(member(n)) < 65536 + 8)
        cut = member(n)
        open('straddle.bin', 'wb').write(bytes(i % 251 for i in range(n)))
        straddle = cut + gzip.compress(b'after\\n', mtime=0)
        save('straddle.bin.gz', straddle, [])
        save('straddlecrc.bin.gz', straddle, [len(cut) - 8])
        save('straddleisize.bin.gz', straddle, [len(cut) - 1])
        # A member with its header's own CRC (FHCRC): zlib checks that member.
        import zlib
        plain = gzip.compress(b'checked by zlib\\n', mtime=0)
        head = bytearray(plain[:10]); head[3] |= 2
        hcrc = bytes(head) + (zlib.crc32(bytes(head)) & 0xffff).to_bytes(2, 'little') + plain[10:]
        save('hcrc.txt.gz', hcrc, [])
        save('hcrccrc.txt.gz', hcrc, [len(hcrc) - 8])
        save('hcrcheader.txt.gz', hcrc, [10])
        bz = bz2.compress(tar)  # its blocks' CRCs
        save('bz.tar.bz2', bz, range(len(bz) // 2, len(bz) // 2 + 200))
        xz = lzma.compress(tar)
        save('xz.tar.xz', xz, payload(xz))
        with zipfile.ZipFile('ok.zip', 'w', zipfile.ZIP_STORED) as z: z.writestr('big.bin', data)
        z = open('ok.zip', 'rb').read()
        save('crc.zip', z, payload(z))

        """

    @Test(arguments: [
        ("payload.tar.gz", "CRC32 mismatch in member 1"), ("crc.tar.gz", "CRC32 mismatch in member 1"),
        ("isize.tar.gz", "length (ISIZE) mismatch in member 1"), ("payload.bin.gz", "CRC32 mismatch in member 1"),
        ("second.tar.gz", "CRC32 mismatch in member 2"), ("straddlecrc.bin.gz", "CRC32 mismatch in member 1"),
        ("straddleisize.bin.gz", "length (ISIZE) mismatch in member 1"), ("hcrccrc.txt.gz", "CRC32 mismatch in member 1"),
        ("hcrcheader.txt.gz", "header crc mismatch in member 1"),
    ])
    func aGzipWhoseTrailerDisagreesFailsNamingTheArchive(archive: String, problem: String) throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        let failure = try #require(fixtures.extract(archive))
        #expect(failure != .cancelled)
        #expect(failure.reason == "cannot read '\(fixtures.path(archive))': gzip data is corrupt (\(problem))")
        fixtures.expectOutUntouched()
    }

    @Test func aGzipOfSeveralMembersExtractsWhole() throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        #expect(fixtures.extract("two.tar.gz", to: "tar") == nil)
        let original = try Data(contentsOf: URL(fileURLWithPath: fixtures.path("t.tar")))
        let big = try Data(contentsOf: URL(fileURLWithPath: fixtures.path("tar/big.bin")))
        #expect(big.count == 3 << 20 && original.range(of: big) != nil)
        #expect(fixtures.text("tar/after.txt") == "x")
        #expect(fixtures.extract("two.txt.gz", to: "text") == nil)
        #expect(fixtures.text("text/two.txt") == "first\nsecond\n")
    }

    /// The CRC-32 is taken by flowrun, not zlib, for a member without a header CRC: a trailer
    /// read in two blocks is still whole; a member with a header CRC is checked by zlib.
    @Test func aTrailerAcrossTwoReadsAndAHeaderCRCAreRead() throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        #expect(fixtures.extract("straddle.bin.gz", to: "straddle") == nil)
        let expected = try Data(contentsOf: URL(fileURLWithPath: fixtures.path("straddle.bin"))) + Data("after\n".utf8)
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixtures.path("straddle/straddle.bin"))) == expected)
        #expect(fixtures.extract("hcrc.txt.gz", to: "hcrc") == nil)
        #expect(fixtures.text("hcrc/hcrc.txt") == "checked by zlib\n")
    }

    /// From a pipe (a FIFO), gzip is inflated by zlib too: its trailers are checked.
    @Test(arguments: [("crc.tar.gz", false), ("second.tar.gz", false), ("two.tar.gz", true)])
    func aGzipFromAPipeIsCheckedToo(archive: String, valid: Bool) throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        try #require(mkfifo(fixtures.path("pipe"), 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat \"$1\" > \"$2\"", "sh", fixtures.path(archive), fixtures.path("pipe")]
        try writer.run()
        let failure = fixtures.extract("pipe")
        writer.waitUntilExit()
        if valid {
            #expect(failure == nil)
            #expect(fixtures.text("out/after.txt") == "x")
        } else {
            let problem = archive == "crc.tar.gz" ? "member 1" : "member 2"
            #expect(failure?.reason == "cannot read '\(fixtures.path("pipe"))': gzip data is corrupt (CRC32 mismatch in \(problem))")
            fixtures.expectOutUntouched()
        }
    }

    @Test(arguments: ["bz.tar.bz2", "xz.tar.xz", "crc.zip"])
    func otherFormatsWithCorruptDataFail(archive: String) throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        let failure = try #require(fixtures.extract(archive))
        #expect(failure != .cancelled)
        #expect(failure.reason.contains(fixtures.path(archive)) || failure.reason.contains("big.bin"), "\(failure)")
        fixtures.expectOutUntouched()
    }

    @Test func aZstdWhoseChecksumDisagreesFails() throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        try fixtures.run(["zstd", "-q", "--check", "t.tar", "-o", "ok.tar.zst"])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: fixtures.path("ok.tar.zst")))
        bytes[bytes.count - 1] ^= 0x5a  // the frame's checksum (XXH64, its low 4 bytes)
        try bytes.write(to: URL(fileURLWithPath: fixtures.path("zs.tar.zst")))
        let failure = try #require(fixtures.extract("zs.tar.zst"))
        #expect(failure.reason.contains("checksum"), "\(failure)")
        fixtures.expectOutUntouched()
    }
}
