import FlowModel
import Foundation
import Testing

@testable import FlowActions

/// A zip's or an uncompressed tar's entries are read on a thread of their own
/// (`EntryReadAhead`): every entry and every byte arrives in order, whatever the ring and the
/// queue hold; skipped data is dropped; a cancel or a read error ends both threads with the
/// right failure and leaves `to` as it was.
@Suite struct DecompressReadAheadTests {
    /// More empty files than the queue holds (1,024), files larger than the ring (2 MiB), a
    /// stripped top-level file with data, a stored entry; and a zip whose big entry is broken.
    static let archives = """
        big = b''.join(b'line %d of the big file\\n' % i for i in range(150000))
        other = bytes((i * 7919) % 251 for i in range(3 << 20))
        def entries():
            yield 'top.bin', big
            yield 'pkg/', None
            for i in range(1500): yield 'pkg/many/f%04d' % i, b''
            yield 'pkg/big.bin', big
            yield 'pkg/stored.txt', b'stored'
            yield 'pkg/other.bin', other
        with zipfile.ZipFile('many.zip', 'w', zipfile.ZIP_DEFLATED) as z:
            for name, data in entries():
                if data is None: z.writestr(name, b'')
                elif name.endswith('stored.txt'): z.writestr(name, data, compress_type=zipfile.ZIP_STORED)
                else: z.writestr(name, data)
        with tarfile.open('many.tar', 'w') as t:
            for name, data in entries():
                info = tarfile.TarInfo(name.rstrip('/'))
                if data is None: info.type = tarfile.DIRTYPE
                else: info.size = len(data)
                t.addfile(info, io.BytesIO(data) if data else None)
        open('big.expected', 'wb').write(big); open('other.expected', 'wb').write(other)
        with zipfile.ZipFile('broken.zip', 'w', zipfile.ZIP_DEFLATED) as z:
            z.writestr('first.txt', b'first'); z.writestr('big.bin', big); z.writestr('after.txt', b'after')
        broken = bytearray(open('broken.zip', 'rb').read())
        for i in range(len(broken) // 2, len(broken) // 2 + 64): broken[i] ^= 0x5a
        open('broken.zip', 'wb').write(broken)

        """

    @Test(arguments: ["many.zip", "many.tar"])
    func everyEntryAndByteArrivesInOrder(archive: String) throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.archives)
        #expect(fixtures.extract(archive, strip: 1) == nil)
        #expect(fixtures.listing("out") == ["big.bin", "many", "other.bin", "stored.txt"], "top.bin stripped")
        let many = fixtures.listing("out/many")
        #expect(many.count == 1500)
        #expect(many.first == "f0000" && many.last == "f1499")
        #expect(FileTree.status(fixtures.path("out/many/f0750"))?.st_size == 0)
        #expect(FileManager.default.contents(atPath: fixtures.path("out/big.bin")) == FileManager.default.contents(atPath: fixtures.path("big.expected")))
        #expect(
            FileManager.default.contents(atPath: fixtures.path("out/other.bin")) == FileManager.default.contents(atPath: fixtures.path("other.expected")))
        #expect(fixtures.text("out/stored.txt") == "stored")
    }

    @Test(arguments: ["many.zip", "many.tar"])
    func aCancelWhileReadingAheadLeavesToAsItWas(archive: String) throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.archives)
        try FileManager.default.createDirectory(atPath: fixtures.path("out"), withIntermediateDirectories: true)
        try "keep".write(toFile: fixtures.path("out/keep.txt"), atomically: false, encoding: .utf8)
        var asked = 0
        let failure = try #require(
            fixtures.extract(
                archive,
                isCancelled: {
                    asked += 1
                    return asked > 30
                }))
        #expect(failure == .cancelled)
        #expect(fixtures.listing("out") == ["keep.txt"])
        #expect(!fixtures.listing().contains { $0.contains("flowrun-") })
    }

    @Test func aBrokenEntryFailsNamingItAndLeavesToAsItWas() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.archives)
        try FileManager.default.createDirectory(atPath: fixtures.path("out"), withIntermediateDirectories: true)
        try "keep".write(toFile: fixtures.path("out/keep.txt"), atomically: false, encoding: .utf8)
        let failure = try #require(fixtures.extract("broken.zip"))
        #expect(failure != .cancelled)
        #expect(failure.reason.contains("'big.bin'") && failure.reason.contains("cannot be read"), "\(failure)")
        #expect(fixtures.listing("out") == ["keep.txt"])
        #expect(!fixtures.listing().contains { $0.contains("flowrun-") })
    }
}
