import FlowModel
import Foundation
import Testing

@testable import FlowActions

/// A compressed archive is decoded on a thread of its own: a cancel or a decoding error ends
/// both threads with the right failure, and leaves `to` as it was.
@Suite struct DecompressDecodeTests {
    static let archives = """
        # Compressible, so that bytes changed in the middle break the compressed stream itself
        # (libarchive, as bsdtar, does not check a gzip member's CRC: stored blocks would pass).
        data = b''.join(b'line %d of the big file\\n' % i for i in range(120000))
        def make(name, mode):
            with tarfile.open(name, mode) as t:
                for n, d in [('big.bin', data), ('after.txt', b'x')]:
                    i = tarfile.TarInfo(n); i.size = len(d); t.addfile(i, io.BytesIO(d))
        make('big.tar.gz', 'w:gz'); make('big.tar.xz', 'w:xz'); make('big.tar.bz2', 'w:bz2')
        for name in ['big.tar.gz', 'big.tar.xz', 'big.tar.bz2']:
            broken = bytearray(open(name, 'rb').read())
            for i in range(len(broken) // 2, len(broken) // 2 + 64): broken[i] ^= 0x5a
            open('broken-' + name, 'wb').write(broken)

        """

    @Test(arguments: ["big.tar.gz", "big.tar.xz", "big.tar.bz2"])
    func aCancelWhileDecodingLeavesToAsItWas(archive: String) throws {
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
                    return asked > 5
                }))
        #expect(failure == .cancelled)
        #expect(fixtures.listing("out") == ["keep.txt"])
        #expect(!fixtures.listing().contains { $0.contains("flowrun-") })
    }

    @Test(arguments: ["broken-big.tar.gz", "broken-big.tar.xz", "broken-big.tar.bz2"])
    func aDecodingErrorFailsTheExtractionAndLeavesToAsItWas(archive: String) throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.archives)
        try FileManager.default.createDirectory(atPath: fixtures.path("out"), withIntermediateDirectories: true)
        try "keep".write(toFile: fixtures.path("out/keep.txt"), atomically: false, encoding: .utf8)
        let failure = try #require(fixtures.extract(archive))
        #expect(failure != .cancelled)
        #expect(failure.reason.contains("big.bin") || failure.reason.contains(archive), "\(failure)")
        #expect(fixtures.listing("out") == ["keep.txt"])
        #expect(!fixtures.listing().contains { $0.contains("flowrun-") })
    }
}
