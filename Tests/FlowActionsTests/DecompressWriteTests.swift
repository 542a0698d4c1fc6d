import FlowFiles
import FlowModel
import FlowTestSupport
import Foundation
import Testing

@testable import FlowActions

/// What the writer does: a failed write fails the task, modes follow tar's rules for the user.
@Suite struct DecompressWriteTests {
    /// A single .gz and a tar entry on a full disk (`DecompressFullDiskTests` has a merge into
    /// an existing `to`): each fails naming the entry and the reason, and leaves nothing.
    @Test(.enabled(if: SmallDisk.isAvailable, Comment(rawValue: SmallDisk.skipMessage)))
    func aFullDiskFailsNamingTheEntryAndLeavesNothing() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            """
            data = os.urandom(3 << 20)
            with tarfile.open('big.tar', 'w') as t:
                info = tarfile.TarInfo('app/big.bin'); info.size = len(data); t.addfile(info, io.BytesIO(data))
            with gzip.GzipFile(filename='big.bin', mode='wb', fileobj=open('big.bin.gz', 'wb')) as f: f.write(data)
            """)
        try FileManager.default.createDirectory(atPath: fixtures.path("disk"), withIntermediateDirectories: true)
        try #require(SmallDisk.mount(at: fixtures.path("disk"), kilobytes: 1024))
        defer { SmallDisk.unmount(fixtures.path("disk")) }
        for (archive, entry) in [("big.tar", "app/big.bin"), ("big.bin.gz", "big.bin")] {
            let failure = try #require(fixtures.extract(archive, to: "disk/out"), "a full disk is no success")
            #expect(failure.reason.contains("entry '\(entry)'"), "\(failure)")
            #expect(failure.reason.contains("No space left on device"), "\(failure)")
            #expect(fixtures.listing("disk") == [], "no staging folder, no half-written file")
        }
    }

    @Test func modesAreMaskedByTheUmaskUnlessPermissionsArePreserved() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            """
            with tarfile.open('modes.tar', 'w') as t:
                for name, kind, mode in [('open/', tarfile.DIRTYPE, 0o777), ('open/all', tarfile.REGTYPE, 0o666),
                                         ('open/run', tarfile.REGTYPE, 0o6777), ('open/mine', tarfile.REGTYPE, 0o600)]:
                    info = tarfile.TarInfo(name); info.type = kind; info.mode = mode; t.addfile(info, io.BytesIO(b''))
            """)
        let umask = Self.umask
        for preserve in [false, true] {
            var extractor = ArchiveExtractor(
                from: fixtures.path("modes.tar"), to: fixtures.path("out-\(preserve)"), format: nil, stripComponents: 0, limits: ExtractionLimits())
            extractor.preservePermissions = preserve
            try extractor.run(isCancelled: { false }, progress: { _, _ in })
            let mask: mode_t = preserve ? 0o7777 : ~umask
            for (name, mode) in [("open", 0o777), ("open/all", 0o666), ("open/run", 0o777), ("open/mine", 0o600)] as [(String, mode_t)] {
                let info = try #require(FileTree.status(fixtures.path("out-\(preserve)/" + name)))
                #expect(info.st_mode & 0o7777 == mode & mask, "\(name) with preserve \(preserve), umask \(String(umask, radix: 8))")
            }
        }
        #expect(ArchiveExtractor(from: "", to: "", format: nil, stripComponents: 0, limits: ExtractionLimits()).preservePermissions == (geteuid() == 0))
    }

    /// libarchive reads the umask by setting it to 0 and back, at each entry: two extractions at
    /// once read the other's 0 and wrote files world-writable (666 where bsdtar wrote 644).
    @Test func extractionsAtOnceMaskModesByTheRealUmask() async throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.makeTarOfEmptyFiles()
        let expected = 0o666 & ~Self.umask
        try await withThrowingTaskGroup(of: [String].self) { group in
            for copy in 0..<4 {
                group.addTask {
                    var extractor = ArchiveExtractor(
                        from: fixtures.path("many.tar"), to: fixtures.path("out-\(copy)"), format: nil, stripComponents: 0,
                        limits: ExtractionLimits())
                    extractor.preservePermissions = false
                    try extractor.run(isCancelled: { false }, progress: { _, _ in })
                    return try (0..<400).compactMap { i in
                        let path = fixtures.path("out-\(copy)/" + String(format: "f%03d", i))
                        let mode = try #require(FileTree.status(path)).st_mode & 0o7777
                        return mode == expected ? nil : "\(path): \(String(mode, radix: 8))"
                    }
                }
            }
            var wrong: [String] = []
            for try await found in group { wrong += found }
            #expect(wrong.isEmpty, "\(wrong.count) files with another mode than \(String(expected, radix: 8)): \(wrong.prefix(5))")
        }
    }

    @Test func anEmptyGzipGivesAnEmptyFile() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python("open('empty.txt.gz', 'wb').write(gzip.compress(b''))")
        for format in [nil, FlowModel.ArchiveFormat.gz] {
            let to = "out-\(format?.rawValue ?? "detected")"
            #expect(fixtures.extract("empty.txt.gz", to: to, format: format) == nil)
            #expect(fixtures.listing(to) == ["empty.txt"])
            #expect(try #require(FileTree.status(fixtures.path(to + "/empty.txt"))).st_size == 0)
        }
        #expect(fixtures.extract("empty.txt.gz", to: "tgz", format: .tarGz)?.reason.contains("not tar.gz") == true)
    }

    /// Read before main: the umask is the process's, and an extraction on another test's
    /// thread has it at 0 for a moment at every entry.
    static let umask: mode_t = StartupUmask.value
}
