import Foundation
import Testing

@testable import FlowActions

/// Zips whose local header and central directory disagree in what libarchive reads from the
/// local header (method, encryption, CRC-32), or whose end record or directory sizes lie: bsdtar
/// fails each entry that libarchive cannot read as listed, and the whole-entry inflate
/// (`WholeEntryInflater`) must neither succeed where it fails nor give an entry another's bytes.
@Suite struct DecompressZipDisagreementTests {
    /// Three deflated files of 3000 bytes each, `b.txt` changed by `patch(local, central)`;
    /// `descriptor`: sizes and CRC-32 after the data (as `zip -fd` writes them).
    static let archives = """
        import random, zlib
        random.seed(7)
        words = [b'alpha', b'beta', b'gamma', b'delta', b'\\n']
        def text(n): return b' '.join(random.choice(words) for _ in range(n // 5 + 2))[:n]
        entries = [(n, text(4000)[:3000]) for n in ('a.txt', 'b.txt', 'c.txt')]
        for n, data in entries: open('src-' + n, 'wb').write(data)
        assert all(len(data) == 3000 for _, data in entries)  # one size: only the order tells them apart
        def build(name, patch=lambda local, central: None, descriptor=False, order=(0, 1, 2), count=3, stream=False):
            out, records = bytearray(), []
            for n, data in entries:
                c = zlib.compressobj(9, zlib.DEFLATED, -15)
                comp = c.compress(data) + c.flush()
                local = dict(method=8, flags=8 if descriptor else 0, crc=zlib.crc32(data), cs=len(comp), us=len(data))
                central = dict(local, offset=len(out))
                if n == 'b.txt': patch(local, central)
                sizes = (0, 0, 0) if descriptor else (local['crc'], local['cs'], local['us'])
                out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, local['flags'], local['method'], 0, 0x21, *sizes, len(n), 0)
                out += n.encode() + comp
                if descriptor: out += struct.pack('<IIII', 0x08074b50, local['crc'], local['cs'], local['us'])
                records.append(struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 0x031e, 20, central['flags'], central['method'], 0,
                    0x21, central['crc'], central['cs'], central['us'], len(n), 0, 0, 0, 0, 0o100644 << 16, central['offset']) + n.encode())
            start = len(out)
            out += b''.join(records[i] for i in order)
            # stream: a directory size one too large, so that libarchive reads the local headers as a stream
            out += struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, count, count, len(out) - start + stream, start, 0)
            open(name, 'wb').write(out)
        build('local-stored.zip', lambda local, central: local.update(method=0))
        build('local-encrypted.zip', lambda local, central: local.update(flags=1))
        build('local-crc.zip', lambda local, central: local.update(crc=local['crc'] ^ 1))
        build('central-compressed-size.zip', lambda local, central: central.update(cs=central['cs'] + 2), descriptor=True)
        build('count-short.zip', order=(1, 2, 0), count=2)
        build('unlisted-first.zip', order=(1, 2), count=2, stream=True)
        with zipfile.ZipFile('comment.zip', 'w', zipfile.ZIP_DEFLATED) as z:
            for n, data in entries: z.writestr(n, data)
            z.comment = b'PK\\x05\\x06 is where an end record starts' + b'.' * 40
        """

    /// bsdtar: "ZIP uncompressed data is wrong size", a passphrase asked for, "ZIP bad CRC",
    /// "ZIP compressed data is wrong size".
    @Test(arguments: ["local-stored.zip", "local-encrypted.zip", "local-crc.zip", "central-compressed-size.zip"])
    func anEntryLibarchiveCannotReadAsListedFailsNamingIt(archive: String) throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        let failure = try #require(fixtures.extract(archive), "\(archive) extracted")
        #expect(failure.reason.hasPrefix("entry 'b.txt' "), "\(failure)")
        fixtures.expectOutUntouched()
    }

    /// `count-short.zip`: the end record counts two of the directory's three entries;
    /// libarchive reads all three (up to the end record), as bsdtar extracts them.
    /// `unlisted-first.zip`: `a.txt` is not in the directory, whose size in the end record
    /// makes libarchive read the local headers as a stream (as bsdtar extracts it, `a.txt` too).
    @Test(arguments: ["count-short.zip", "unlisted-first.zip"])
    func anEntryTheDirectoryDoesNotCountGetsItsOwnBytes(archive: String) throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        #expect(fixtures.extract(archive, to: "x") == nil)
        for name in ["a.txt", "b.txt", "c.txt"] {
            fixtures.expectSameBytes("x/" + name, as: "src-" + name)
        }
    }

    /// A comment that holds the end record's signature (libarchive then reads the zip as a
    /// stream, and bsdtar extracts it): the end record is the one whose comment ends the file.
    @Test func aCommentHoldingTheEndRecordsSignatureExtracts() throws {
        let fixtures = try DecompressFixtures(archives: Self.archives)
        defer { fixtures.remove() }
        #expect(fixtures.extract("comment.zip", to: "x") == nil)
        for name in ["a.txt", "b.txt", "c.txt"] {
            fixtures.expectSameBytes("x/" + name, as: "src-" + name)
        }
    }
}
