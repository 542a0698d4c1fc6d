import FlowTestSupport
import Foundation
import Glibc
import Testing

@testable import FlowActions

/// An extraction that fills the disk fails naming the entry and the reason, and leaves `to`
/// as it was with no staging folder beside it.
@Suite struct DecompressFullDiskTests {
    @Test(.enabled(if: SmallDisk.isAvailable, Comment(rawValue: SmallDisk.skipMessage)))
    func aFullDiskFailsTheExtractionAndLeavesToAsItWas() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            "data = os.urandom(1 << 20)\n"
                + "with tarfile.open('big.tar', 'w') as t:\n"
                + "    i = tarfile.TarInfo('keep'); i.size = 3; t.addfile(i, io.BytesIO(b'new'))\n"
                + "    i = tarfile.TarInfo('big.bin'); i.size = len(data); t.addfile(i, io.BytesIO(data))\n")
        try FileManager.default.createDirectory(atPath: fixtures.path("disk"), withIntermediateDirectories: true)
        try #require(SmallDisk.mount(at: fixtures.path("disk"), kilobytes: 256))
        defer { SmallDisk.unmount(fixtures.path("disk")) }
        try FileManager.default.createDirectory(atPath: fixtures.path("disk/out"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: fixtures.path("disk/out/keep")))

        let failure = try #require(fixtures.extract("big.tar", to: "disk/out"))
        #expect(failure.reason.contains("big.bin") && failure.reason.contains("No space left on device"), "\(failure.reason)")
        #expect(fixtures.text("disk/out/keep") == "old")
        #expect(fixtures.listing("disk") == ["out"])
        #expect(fixtures.listing("disk/out") == ["keep"])
    }
}
