import FlowFiles
import FlowModel
import Foundation
import Testing

@testable import FlowActions

/// An extraction notes the XXH3-128 of the archive it read and of every file it wrote
/// (`StreamedDigests`), each under the file's identity at `to`, so that the up-to-date
/// bookkeeping reads nothing back; a digest noted is always the file's.
@Suite struct DecompressDigestTests {
    /// Files of 0 bytes to 700 KiB (more than one decoded buffer), in folders.
    static let tree = """
        import random
        rng = random.Random(7)
        files = {'top.txt': b'top\\n', 'empty': b'', 'a/b/deep.bin': rng.randbytes(700 * 1024),
                 'a/text.txt': b'line\\n' * 30000, 'c/d.txt': b'd'}
        def fill(add):
            for name, data in sorted(files.items()): add(name, data)
        def tar(name, mode):
            with tarfile.open(name, mode) as t:
                def add(n, data):
                    info = tarfile.TarInfo(n); info.size = len(data); t.addfile(info, io.BytesIO(data))
                fill(add)
        tar('t.tar', 'w'); tar('t.tar.gz', 'w:gz'); tar('t.tar.xz', 'w:xz'); tar('t.tar.bz2', 'w:bz2')
        with zipfile.ZipFile('t.zip', 'w', zipfile.ZIP_DEFLATED) as z: fill(z.writestr)

        """

    /// The digest the up-to-date state keeps of the file at `path` (`XXH128Hasher`).
    static func xxh128(_ path: String) throws -> String {
        DownloadRunnerTests.xxh128(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// Every regular file below `folder`, relative.
    static func files(below folder: String) -> [String] {
        let walker = FileManager.default.enumerator(atPath: folder)
        var found: [String] = []
        while let name = walker?.nextObject() as? String {
            var info = stat()
            if lstat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG { found.append(name) }
        }
        return found.sorted()
    }

    /// Takes each file's digest from `store` as the bookkeeping does, by the file's identity
    /// now, and compares it with the file's bytes; the store is then empty.
    static func expectNoted(
        _ paths: [String], in store: StreamedDigests, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        for path in paths {
            let identity = try #require(FileStatus.of(path: path))
            #expect(store.take(identity)?.digest == (try xxh128(path)), "\(path)", sourceLocation: sourceLocation)
        }
        #expect(store.count == 0, "nothing else noted", sourceLocation: sourceLocation)
    }

    @Test(arguments: ["t.tar", "t.tar.gz", "t.tar.xz", "t.tar.bz2", "t.zip"])
    func theArchiveAndEveryFileWrittenAreNoted(archive: String) throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.tree)
        let store = StreamedDigests()
        var extractor = ArchiveExtractor(
            from: fixtures.path(archive), to: fixtures.path("out"), format: nil, stripComponents: 0, limits: ExtractionLimits())
        extractor.digests = store
        try extractor.run(isCancelled: { false }, progress: { _, _ in })

        let written = Self.files(below: fixtures.path("out"))
        #expect(written == ["a/b/deep.bin", "a/text.txt", "c/d.txt", "empty", "top.txt"])
        #expect(store.count == written.count + 1)
        try Self.expectNoted(written.map { fixtures.path("out/" + $0) } + [fixtures.path(archive)], in: store)
    }

    /// Merged into an existing `to`, the files are moved one by one (a rename moves the ctime):
    /// they are noted under their identity there.
    @Test func filesMergedIntoAnExistingFolderAreNotedWhereTheyLand() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.tree)
        try FileManager.default.createDirectory(atPath: fixtures.path("out/a"), withIntermediateDirectories: true)
        try "old".write(toFile: fixtures.path("out/top.txt"), atomically: false, encoding: .utf8)
        try "mine".write(toFile: fixtures.path("out/a/mine.txt"), atomically: false, encoding: .utf8)
        let store = StreamedDigests()
        var extractor = ArchiveExtractor(
            from: fixtures.path("t.tar.gz"), to: fixtures.path("out"), format: nil, stripComponents: 0, limits: ExtractionLimits())
        extractor.digests = store
        try extractor.run(isCancelled: { false }, progress: { _, _ in })

        #expect(fixtures.text("out/a/mine.txt") == "mine")
        let written = Self.files(below: fixtures.path("out")).filter { $0 != "a/mine.txt" }
        try Self.expectNoted(written.map { fixtures.path("out/" + $0) } + [fixtures.path("t.tar.gz")], in: store)
    }

    /// A file changed after it was written has another identity: its digest is not found, and
    /// the bookkeeping hashes it.
    @Test func aFileEditedAfterTheExtractionIsNotTakenForTheNotedOne() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.tree)
        let store = StreamedDigests()
        var extractor = ArchiveExtractor(
            from: fixtures.path("t.tar.gz"), to: fixtures.path("out"), format: nil, stripComponents: 0, limits: ExtractionLimits())
        extractor.digests = store
        try extractor.run(isCancelled: { false }, progress: { _, _ in })
        let handle = try #require(FileHandle(forWritingAtPath: fixtures.path("out/c/d.txt")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("e".utf8))
        try handle.close()
        #expect(store.take(try #require(FileStatus.of(path: fixtures.path("out/c/d.txt")))) == nil)
    }

    /// The archive changed while it was read (here: grown at the first progress report): its
    /// digest is not noted, as the bytes hashed need not be the file's now.
    @Test(arguments: ["t.tar", "t.tar.gz", "t.zip"])
    func anArchiveChangedWhileItWasReadIsNotNoted(archive: String) throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.tree)
        let store = StreamedDigests()
        var extractor = ArchiveExtractor(
            from: fixtures.path(archive), to: fixtures.path("out"), format: nil, stripComponents: 0, limits: ExtractionLimits())
        extractor.digests = store
        var grown = false
        try extractor.run(isCancelled: { false }) { _, _ in
            guard !grown, let handle = FileHandle(forWritingAtPath: fixtures.path(archive)) else { return }
            grown = true
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data(count: 512))
            try? handle.close()
        }
        #expect(grown)
        #expect(store.take(try #require(FileStatus.of(path: fixtures.path(archive)))) == nil)
    }

    /// A failed extraction takes back what it noted: the files it wrote are gone.
    @Test func aFailedExtractionLeavesNothingNoted() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            Self.tree + """
                whole = open('t.tar.gz', 'rb').read(); open('cut.tar.gz', 'wb').write(whole[:len(whole) * 3 // 4])
                """)
        let store = StreamedDigests()
        var extractor = ArchiveExtractor(
            from: fixtures.path("cut.tar.gz"), to: fixtures.path("out"), format: nil, stripComponents: 0, limits: ExtractionLimits())
        extractor.digests = store
        #expect(throws: ActionFailure.self) { try extractor.run(isCancelled: { false }, progress: { _, _ in }) }
        #expect(store.count == 0)
        fixtures.expectOnly(["cut.tar.gz", "t.tar", "t.tar.bz2", "t.tar.gz", "t.tar.xz", "t.zip"])
    }

    /// A sparse file's holes are not written as data: it is not noted (the bookkeeping hashes
    /// it), and nothing wrong is.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tar"), "needs GNU tar"))
    func aSparseFileIsLeftToTheBookkeeping() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            """
            os.makedirs('src')
            with open('src/sparse.img', 'wb') as f:
                f.write(b'head'); f.seek(1 << 20); f.write(b'tail')
            open('src/plain.txt', 'wb').write(b'plain')
            """)
        try fixtures.run(["tar", "--sparse", "-czf", "sparse.tar.gz", "-C", "src", "sparse.img", "plain.txt"])
        let store = StreamedDigests()
        var extractor = ArchiveExtractor(
            from: fixtures.path("sparse.tar.gz"), to: fixtures.path("out"), format: nil, stripComponents: 0, limits: ExtractionLimits())
        extractor.digests = store
        try extractor.run(isCancelled: { false }, progress: { _, _ in })
        #expect(store.take(try #require(FileStatus.of(path: fixtures.path("out/sparse.img")))) == nil)
        try Self.expectNoted([fixtures.path("out/plain.txt"), fixtures.path("sparse.tar.gz")], in: store)
    }
}
