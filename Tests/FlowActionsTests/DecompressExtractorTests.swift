import FlowModel
import Foundation
import Testing

@testable import FlowActions

/// `ArchiveExtractor` on real archives of every format the issue names.
@Suite struct DecompressExtractorTests {
    /// A small tree: app-1.0/bin/tool (mode 755), app-1.0/README, an in-tree symlink.
    static let tree = """
        def add(t, name, data=b'', mode=0o644, kind=tarfile.REGTYPE, link=''):
            info = tarfile.TarInfo(name); info.mode = mode; info.type = kind; info.linkname = link
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            t.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
        def tree(t):
            add(t, 'app-1.0/', kind=tarfile.DIRTYPE, mode=0o755)
            add(t, 'app-1.0/bin/tool', b'#!/bin/sh\\necho hi\\n', mode=0o4755)
            add(t, 'app-1.0/README', b'read me\\n')
            add(t, 'app-1.0/docs', kind=tarfile.SYMTYPE, link='README')

        """

    @Test(arguments: [
        ("app.tar", "w", "tar", FlowModel.ArchiveFormat.tar),
        ("app.tar.gz", "w:gz", "tar.gz", .tarGz),
        ("app.tar.bz2", "w:bz2", "tar.bz2", .tarBz2),
        ("app.tar.xz", "w:xz", "tar.xz", .tarXz),
    ])
    func tarFormatsExtractWithStripComponents(name: String, mode: String, _: String, format: FlowModel.ArchiveFormat) throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.tree + "with tarfile.open('\(name)', '\(mode)', format=tarfile.PAX_FORMAT) as t: tree(t)")
        for given in [nil, format] {
            FileTree.remove(fixtures.path("out"))
            #expect(fixtures.extract(name, format: given, strip: 1) == nil)
            #expect(fixtures.listing("out") == ["README", "bin", "docs"])
            #expect(fixtures.text("out/docs") == "read me\n")
            let tool = try #require(FileTree.status(fixtures.path("out/bin/tool")))
            #expect(tool.st_mode & 0o7777 == 0o755, "mode kept, setuid dropped")
            #expect(FileTree.readLink(fixtures.path("out/docs")) == "README")
        }
        fixtures.expectOnly([name, "out"])
    }

    /// Progress counts compressed bytes read, and a finished extraction has read the whole
    /// archive: its last report is the archive's size, so a bar ends full. A zip's central
    /// directory, at its end, is read first; the reader's place then ended at the last entry,
    /// and the bar stopped short (459 of 1002 bytes for three small files).
    @Test(arguments: ["app.zip", "app.tar", "app.tar.gz"])
    func theLastProgressReportIsTheWholeArchive(name: String) throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            Self.tree + """
                with tarfile.open('app.tar', 'w') as t: tree(t)
                with tarfile.open('app.tar.gz', 'w:gz') as t: tree(t)
                with zipfile.ZipFile('app.zip', 'w') as z:
                    z.writestr('a/one', 'first\\n'); z.writestr('a/two', 'second\\n' * 50); z.writestr('b', 'third\\n')
                """)
        let size = try #require(FileTree.status(fixtures.path(name))).st_size
        var last: (Int64, Int64?)?
        let extractor = ArchiveExtractor(from: fixtures.path(name), to: fixtures.path("out"), format: nil, stripComponents: 0, limits: ExtractionLimits())
        try extractor.run(isCancelled: { false }, progress: { last = ($0, $1) })
        #expect(last?.0 == Int64(size) && last?.1 == Int64(size), "\(String(describing: last)) of \(size)")
    }

    @Test func ustarAndGnuTarsAndSparseFilesExtract() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            Self.tree + """
                for fmt, name in [(tarfile.USTAR_FORMAT, 'u.tar'), (tarfile.GNU_FORMAT, 'g.tar')]:
                    with tarfile.open(name, 'w', format=fmt) as t: tree(t)
                with open('sparse.img', 'wb') as f:
                    f.seek(50 << 20); f.write(b'end')
                """)
        try fixtures.run(["tar", "--sparse", "-czf", "sparse.tar.gz", "sparse.img"])
        for name in ["u.tar", "g.tar"] {
            #expect(fixtures.extract(name, to: name + ".out") == nil)
            #expect(fixtures.text(name + ".out/app-1.0/README") == "read me\n")
        }
        #expect(
            fixtures.extract("sparse.tar.gz", limits: ExtractionLimits(maxFiles: nil, maxBytes: 1 << 20, maxRatio: nil)) == nil,
            "holes do not count as bytes written")
        let image = try #require(FileTree.status(fixtures.path("out/sparse.img")))
        #expect(image.st_size == 50 << 20 + 3)
        #expect(Int(image.st_blocks) * 512 < 1 << 20, "holes stay holes")
    }

    @Test func zstdTarExtracts() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.tree + "with tarfile.open('app.tar', 'w') as t: tree(t)")
        try fixtures.run(["zstd", "-q", "app.tar", "-o", "app.tar.zst"])
        #expect(fixtures.extract("app.tar.zst", format: .tarZst, strip: 1) == nil)
        #expect(fixtures.text("out/README") == "read me\n")
    }

    @Test func zipDeflateStoredAndZip64Extract() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            """
            with zipfile.ZipFile('a.zip', 'w') as z:
                z.writestr('top/stored.txt', 'stored', compress_type=zipfile.ZIP_STORED)
                z.writestr('top/deflated.txt', 'deflated ' * 100, compress_type=zipfile.ZIP_DEFLATED)
                info = zipfile.ZipInfo('top/run.sh'); info.external_attr = 0o100755 << 16
                z.writestr(info, '#!/bin/sh\\n')
            with zipfile.ZipFile('b.zip', 'w', zipfile.ZIP_DEFLATED) as z:
                with z.open('big.txt', 'w', force_zip64=True) as f: f.write(b'zip64 ' * 1000)
            """)
        #expect(fixtures.extract("a.zip", format: .zip, strip: 1) == nil)
        #expect(fixtures.listing("out") == ["deflated.txt", "run.sh", "stored.txt"])
        #expect(fixtures.text("out/stored.txt") == "stored")
        #expect(try #require(FileTree.status(fixtures.path("out/run.sh"))).st_mode & 0o777 == 0o755)
        #expect(fixtures.extract("b.zip", to: "b") == nil)
        #expect(fixtures.text("b/big.txt") == String(repeating: "zip64 ", count: 1000))
    }

    @Test func singleGzipFileTakesItsHeaderNameOrTheArchiveName() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            """
            with gzip.GzipFile(filename='inside.log', mode='wb', fileobj=open('named.gz', 'wb')) as f: f.write(b'log line\\n')
            open('notes.txt.gz', 'wb').write(gzip.compress(b'notes\\n'))
            """)
        #expect(fixtures.extract("named.gz", format: .gz) == nil)
        #expect(fixtures.listing("out") == ["inside.log"])
        #expect(fixtures.extract("notes.txt.gz", to: "notes") == nil)
        #expect(fixtures.text("notes/notes.txt") == "notes\n")
        // `format: gz` is gunzip, whatever the content: a .tar.gz yields its .tar.
        try fixtures.python(
            Self.tree + "with tarfile.open('app.tar', 'w') as t: tree(t)\nopen('app.tar.gz', 'wb').write(gzip.compress(open('app.tar', 'rb').read()))")
        #expect(fixtures.extract("app.tar.gz", to: "tar", format: .gz) == nil)
        #expect(fixtures.listing("tar") == ["app.tar"])
        #expect(FileManager.default.contentsEqual(atPath: fixtures.path("tar/app.tar"), andPath: fixtures.path("app.tar")))
    }

    /// A `.tgz` (GNU tar's `tar -czf app.tgz`, whose gzip header holds no name) given as
    /// `format: gz` yields `app.tar`, as `gunzip app.tgz` names it; flowrun wrote `app`. The
    /// other tools' short suffixes (`.taz`, `.txz`, `.tlz`, `.tbz2`, `.tbz`, `.tzst`) give `.tar` too.
    @Test func aTgzGivenAsGzYieldsItsTarAsGunzipNamesIt() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            Self.tree + "with tarfile.open('app.tar', 'w') as t: tree(t)\nopen('app.tgz', 'wb').write(gzip.compress(open('app.tar', 'rb').read()))")
        try FileManager.default.createDirectory(atPath: fixtures.path("gunzip"), withIntermediateDirectories: true)
        try fixtures.run(["sh", "-c", "cp app.tgz gunzip/ && gzip -d gunzip/app.tgz"])
        #expect(fixtures.extract("app.tgz", to: "tar", format: .gz) == nil)
        #expect(fixtures.listing("tar") == fixtures.listing("gunzip"))
        #expect(fixtures.listing("tar") == ["app.tar"])
        #expect(FileManager.default.contentsEqual(atPath: fixtures.path("tar/app.tar"), andPath: fixtures.path("app.tar")))
        for (archive, name) in [
            ("a.taz", "a.tar"), ("a.txz", "a.tar"), ("a.tlz", "a.tar"), ("a.tbz2", "a.tar"), ("a.tbz", "a.tar"), ("a.tzst", "a.tar"), ("a.log.gz", "a.log"),
            ("a", "a"),
        ] {
            #expect(String(decoding: SingleFileName.of(archive: fixtures.path(archive), isRegularFile: true), as: UTF8.self) == name, "\(archive)")
        }
    }

    @Test func aFormatThatDoesNotMatchFailsClearly() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.tree + "with tarfile.open('app.tar.gz', 'w:gz') as t: tree(t)\nopen('plain.txt', 'w').write('not an archive')")
        let wrong = try #require(fixtures.extract("app.tar.gz", format: .zip))
        #expect(wrong.reason.contains("not zip as 'format' says"), "\(wrong)")
        let plain = try #require(fixtures.extract("plain.txt"))
        #expect(plain.reason.contains("not an archive"), "\(plain)")
        fixtures.expectOnly(["app.tar.gz", "plain.txt"])
        // With no entry to read, the format is still checked.
        try fixtures.python("tarfile.open('empty.tar.gz', 'w:gz').close()\nopen('empty', 'w').close()")
        #expect(fixtures.extract("empty.tar.gz", to: "e1", format: .tarGz) == nil)
        #expect(fixtures.extract("empty.tar.gz", to: "e2", format: .tarXz)?.reason.contains("not tar.xz") == true)
        // A 0-byte file is refused before any format is looked for (DecompressEmptyArchiveTests).
        #expect(fixtures.extract("empty", to: "e3", format: .zip)?.reason.contains("is empty (0 bytes): not a zip archive") == true)
    }

    @Test func anExistingFolderIsMergedInto() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(Self.tree + "with tarfile.open('app.tar', 'w') as t: tree(t)")
        try FileManager.default.createDirectory(atPath: fixtures.path("out/bin"), withIntermediateDirectories: true)
        try "mine".write(toFile: fixtures.path("out/bin/mine"), atomically: false, encoding: .utf8)
        try "old".write(toFile: fixtures.path("out/README"), atomically: false, encoding: .utf8)
        #expect(fixtures.extract("app.tar", strip: 1) == nil)
        #expect(fixtures.listing("out/bin") == ["mine", "tool"])
        #expect(fixtures.text("out/README") == "read me\n")
        fixtures.expectOnly(["app.tar", "out"])
        // A `to` that is a symlink to a folder is followed, as `tar -C` does.
        try FileManager.default.createDirectory(atPath: fixtures.path("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixtures.path("linked"), withDestinationPath: "real")
        #expect(fixtures.extract("app.tar", to: "linked", strip: 1) == nil)
        #expect(FileTree.readLink(fixtures.path("linked")) == "real")
        #expect(fixtures.text("real/README") == "read me\n")
    }

    /// 2,000 files in 500 folders, every one arriving, and a file 1,000 times its compressed
    /// size, which the ratio ceiling lets through below its grace (`ExtractionLimits`).
    /// bench/many_files_bench.py runs the 200,000-file version next to bsdtar.
    @Test func manyFilesAndASmallVeryCompressibleFileExtract() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            """
            with tarfile.open('many.tar.gz', 'w:gz') as t:
                for i in range(2000):
                    info = tarfile.TarInfo('d%03d/f%d' % (i % 500, i)); t.addfile(info, io.BytesIO(b''))
            with tarfile.open('log.tar.gz', 'w:gz') as t:
                data = b'a' * (16 << 20); info = tarfile.TarInfo('log'); info.size = len(data); t.addfile(info, io.BytesIO(data))
            """)
        #expect(fixtures.extract("many.tar.gz", to: "many") == nil)
        #expect(fixtures.listing("many").count == 500)
        let files = try FileManager.default.subpathsOfDirectory(atPath: fixtures.path("many")).filter { $0.contains("/") }
        #expect(Set(files) == Set((0..<2000).map { String(format: "d%03d/f%d", $0 % 500, $0) }))
        #expect(fixtures.extract("log.tar.gz", to: "log") == nil)
        #expect(try #require(FileTree.status(fixtures.path("log/log"))).st_size == 16 << 20)
    }
}
