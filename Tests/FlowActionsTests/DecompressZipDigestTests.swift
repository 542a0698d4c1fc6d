import FlowFiles
import Foundation
import Testing

@testable import FlowActions

/// A zip's archive digest is taken from two readers: libarchive's reads (headers, stored and
/// large entries, the directory) and the whole-entry inflater's (`ArchiveSource.bytes`), whose
/// bytes libarchive then skips. Whatever the shape, the digest noted is the archive's XXH3-128
/// and every file has its bytes.
@Suite struct DecompressZipDigestTests {
    /// Entries around the read block (64 KiB) and the whole-entry size (4 MiB), stored ones
    /// between deflated ones; the same behind a stub; with data descriptors (written as to a
    /// pipe), with zip64 extra fields; its central directory listed last entry first.
    static let archives = """
        import random
        rng = random.Random(23)
        words = [b'alpha', b'beta', b'gamma', b'delta', b'\\n']
        def data(n): return (rng.randbytes(n // 3) + b' '.join(rng.choice(words) for _ in range(n // 4)))[:n].ljust(n, b'.')
        sizes = [0, 1, 65535, 65536, 65537, 200000, (4 << 20) - 1, 4 << 20, (4 << 20) + 1, 3 << 20, 70000]
        files = [(f'e{i:02d}.bin', data(n)) for i, n in enumerate(sizes)]
        os.makedirs('src')
        for n, d in files: open('src/' + n, 'wb').write(d)
        def fill(z, zip64=False):
            for i, (n, d) in enumerate(files):
                info = zipfile.ZipInfo(n)
                info.compress_type = zipfile.ZIP_STORED if i % 4 == 3 else zipfile.ZIP_DEFLATED
                with z.open(info, 'w', force_zip64=zip64) as f: f.write(d)
        with zipfile.ZipFile('plain.zip', 'w') as z: fill(z)
        with zipfile.ZipFile('zip64.zip', 'w') as z: fill(z, zip64=True)
        class Pipe:
            def __init__(self, f): self.f = f
            def write(self, b): return self.f.write(b)
            def flush(self): self.f.flush()
        with open('descriptors.zip', 'wb') as f, zipfile.ZipFile(Pipe(f), 'w') as z: fill(z)
        blob = open('plain.zip', 'rb').read()
        open('stub.zip', 'wb').write(b'#!/bin/sh\\nexit 0\\n' + bytes(70000) + blob)
        start, end = blob.find(b'PK\\x01\\x02'), blob.rfind(b'PK\\x05\\x06')
        records, at = [], start
        while at < end:
            n, e, c = struct.unpack('<HHH', blob[at + 28:at + 34])
            records.append(blob[at:at + 46 + n + e + c]); at += 46 + n + e + c
        open('reversed.zip', 'wb').write(blob[:start] + b''.join(reversed(records)) + blob[end:])
        """

    @Test(arguments: ["plain.zip", "zip64.zip", "descriptors.zip", "stub.zip", "reversed.zip"])
    func theArchivesDigestIsItsXXH128WhateverItsShape(archive: String) throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.archives)
        let store = StreamedDigests()
        var extractor = ArchiveExtractor(
            from: fixtures.path(archive), to: fixtures.path("out"), format: nil, stripComponents: 0, limits: ExtractionLimits())
        extractor.digests = store
        try extractor.run(isCancelled: { false }, progress: { _, _ in })

        let written = DecompressDigestTests.files(below: fixtures.path("out"))
        #expect(written == DecompressDigestTests.files(below: fixtures.path("src")))
        for name in written { fixtures.expectSameBytes("out/" + name, as: "src/" + name) }
        try DecompressDigestTests.expectNoted(written.map { fixtures.path("out/" + $0) } + [fixtures.path(archive)], in: store)
    }
}
