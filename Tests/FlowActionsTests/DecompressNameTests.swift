import FlowModel
import Foundation
import Testing

@testable import FlowActions

/// Entry names in every encoding land byte for byte, as `bsdtar -x` writes them; every entry of
/// an archive that extracts is in `to`, and hard links are extracted as hard links.
@Suite struct DecompressNameTests {
    /// `rawzip(path, [(name bytes, data, flags, extra)])`: a stored zip with names exactly as given.
    static let rawZip = """
        import zlib
        def rawzip(path, entries):
            out = io.BytesIO(); directory = b''
            for name, data, flags, extra in entries:
                offset = out.tell(); crc = zlib.crc32(data)
                out.write(struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, flags, 0, 0, 0, crc, len(data), len(data), len(name), len(extra)) + name + extra + data)
                directory += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, flags, 0, 0, 0, crc, len(data), len(data), len(name), len(extra), 0, 0, 0, 0o100644 << 16, offset) + name + extra
            start = out.tell(); out.write(directory)
            out.write(struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, len(entries), len(entries), len(directory), start, 0))
            open(path, 'wb').write(out.getvalue())
        def unicode_path(raw, name):
            return struct.pack('<HHBI', 0x7075, 5 + len(name), 1, zlib.crc32(raw)) + name

        """

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func utf8ZipNamesExtractInTheCLocaleToo() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            Self.rawZip + """
                with zipfile.ZipFile('ja.zip', 'w') as z:
                    z.writestr('日本語/ファイル.txt', 'こんにちは'); z.writestr('ascii.txt', 'a')
                rawzip('noflag.zip', [('日本.txt'.encode(), b'n', 0, b'')])
                rawzip('extra.zip', [('Ü.txt'.encode('cp437'), b'u', 0, unicode_path('Ü.txt'.encode('cp437'), 'Ü.txt'.encode()))])
                """)
        #expect(fixtures.extract("ja.zip", to: "ja") == nil)
        #expect(fixtures.listing("ja") == ["ascii.txt", "日本語"])
        #expect(fixtures.text("ja/日本語/ファイル.txt") == "こんにちは")
        #expect(fixtures.extract("noflag.zip", to: "noflag") == nil)
        #expect(fixtures.text("noflag/日本.txt") == "n")
        #expect(fixtures.extract("extra.zip", to: "extra") == nil)
        #expect(fixtures.listing("extra") == ["Ü.txt"], "the Info-ZIP Unicode Path field names it")
    }

    @Test func namesInOtherEncodingsAreWrittenByteForByte() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            Self.rawZip + """
                rawzip('cp437.zip', [('é'.encode('cp437'), b'e', 0, b''), ('ü'.encode('cp437'), b'u', 0, b'')])
                rawzip('sjis.zip', [('日本'.encode('cp932'), b's', 0, b'')])
                for fmt, name in [(tarfile.GNU_FORMAT, 'raw.tar'), (tarfile.PAX_FORMAT, 'raw.pax')]:
                    with tarfile.open(name, 'w', format=fmt, encoding='utf-8', errors='surrogateescape') as t:
                        for raw in [b'a\\xff', b'a\\xfe', 'é'.encode('latin-1'), 'ж'.encode('koi8-r')]:
                            info = tarfile.TarInfo(raw.decode('utf-8', 'surrogateescape')); info.size = len(raw)
                            t.addfile(info, io.BytesIO(raw))
                """)
        #expect(fixtures.extract("cp437.zip", to: "cp437") == nil)
        #expect(fixtures.byteListing("cp437") == [[0x81], [0x82]], "two names stay two")
        #expect(fixtures.extract("sjis.zip", to: "sjis") == nil)
        #expect(fixtures.byteListing("sjis") == [[0x93, 0xFA, 0x96, 0x7B]])
        for archive in ["raw.tar", "raw.pax"] {
            #expect(fixtures.extract(archive, to: archive + ".out") == nil)
            let names: [[UInt8]] = [[0x61, 0xFE], [0x61, 0xFF], [0xD6], [0xE9]]
            #expect(fixtures.byteListing(archive + ".out") == names)
            for name in names {
                #expect(try readBytes(fixtures.path(archive + ".out"), name) == name, "each file holds its own name: none overwrote another")
            }
        }
    }

    @Test func namesThatAreNotUTF8MergeIntoAnExistingFolder() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            """
            with tarfile.open('raw.tar', 'w', format=tarfile.GNU_FORMAT, encoding='utf-8', errors='surrogateescape') as t:
                for raw in [b'a\\xff', b'caf\\xe9']:
                    info = tarfile.TarInfo(raw.decode('utf-8', 'surrogateescape')); info.size = 1; t.addfile(info, io.BytesIO(b'z'))
            """)
        try FileManager.default.createDirectory(atPath: fixtures.path("out"), withIntermediateDirectories: true)
        try "keep".write(toFile: fixtures.path("out/keep.txt"), atomically: false, encoding: .utf8)
        #expect(fixtures.extract("raw.tar") == nil)
        #expect(fixtures.byteListing("out") == [[0x61, 0xFF], [0x63, 0x61, 0x66, 0xE9], Array("keep.txt".utf8)])
    }

    @Test func unreadableAndEmptyNamesFailNamingTheEntry() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            Self.rawZip + """
                rawzip('bad.zip', [(b'ok.txt', b'x', 0, b''), (b'a\\xff', b'y', 0x800, b'')])
                with tarfile.open('empty-name.tar', 'w', format=tarfile.GNU_FORMAT) as t:
                    for name in ['ok.txt', '']:
                        info = tarfile.TarInfo(name); info.size = 1; t.addfile(info, io.BytesIO(b'z'))
                """)
        let bad = try #require(fixtures.extract("bad.zip"))
        #expect(bad.reason.contains("entry 2") && bad.reason.contains("cannot be read"), "\(bad)")
        let empty = try #require(fixtures.extract("empty-name.tar"))
        #expect(empty.reason.contains("entry with an empty name (entry 2)"), "\(empty)")
        fixtures.expectOnly(["bad.zip", "empty-name.tar"])
    }

    /// A file or symlink entry named `.` (or `./`) names `to` itself: it was skipped as the root
    /// folder and the run was green without it, where bsdtar and GNU tar fail. A folder `.` is
    /// still the root, as `tar -cf x.tar -C dir .` writes it.
    @Test func aFileOrLinkNamedDotFailsNamingTheEntry() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            Self.rawZip + """
                def tar(path, entries):
                    with tarfile.open(path, 'w', format=tarfile.PAX_FORMAT) as t:
                        for name, kind, data in entries:
                            info = tarfile.TarInfo(name); info.type = kind; info.size = len(data)
                            if kind == tarfile.SYMTYPE: info.linkname = 'a.txt'
                            t.addfile(info, io.BytesIO(data))
                tar('file.tar', [('a.txt', tarfile.REGTYPE, b'a'), ('.', tarfile.REGTYPE, b'secret')])
                tar('link.tar', [('a.txt', tarfile.REGTYPE, b'a'), ('.', tarfile.SYMTYPE, b'')])
                tar('root.tar', [('./', tarfile.DIRTYPE, b''), ('./a.txt', tarfile.REGTYPE, b'a')])
                rawzip('file.zip', [(b'a.txt', b'a', 0, b''), (b'.', b'secret', 0, b'')])
                """)
        for archive in ["file.tar", "link.tar", "file.zip"] {
            let failure = try #require(fixtures.extract(archive, to: archive + ".out"), "\(archive) extracted without its '.' entry")
            #expect(failure.reason.contains("entry '.'"), "\(failure)")
        }
        #expect(fixtures.extract("root.tar", to: "root") == nil)
        #expect(fixtures.listing("root") == ["a.txt"])
        fixtures.expectOnly(["file.tar", "link.tar", "root.tar", "file.zip", "root"])
    }

    /// A header whose checksum is wrong is damage (libarchive's `ARCHIVE_RETRY`, which bsdtar
    /// skips with "Retrying..." and GNU tar fails on), never an entry: the task fails saying
    /// so and `to` is not made. A file entry named `./` with data is one way to get there: libarchive
    /// takes it as a folder, and its data then reads as the next header.
    @Test func aDamagedTarHeaderFailsAsDamage() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            """
            import gzip, io, shutil, tarfile
            def tar(path, entries):
                with tarfile.open(path, 'w', format=tarfile.GNU_FORMAT) as t:
                    for name, kind, data in entries:
                        info = tarfile.TarInfo(name); info.type = kind; info.size = len(data)
                        t.addfile(info, io.BytesIO(data))
            tar('dotdata.tar', [('a.txt', tarfile.REGTYPE, b'a\\n'), ('./', tarfile.REGTYPE, b'data\\n')])
            tar('flipped.tar', [('a.txt', tarfile.REGTYPE, b'a\\n'), ('b.txt', tarfile.REGTYPE, b'b\\n'), ('c.txt', tarfile.REGTYPE, b'c\\n')])
            raw = bytearray(open('flipped.tar', 'rb').read()); raw[1024] = ord('x')  # b.txt's name, checksum left
            open('flipped.tar', 'wb').write(raw)
            for name in ['dotdata', 'flipped']:
                with open(name + '.tar', 'rb') as source, gzip.open(name + '.tar.gz', 'wb') as target:
                    shutil.copyfileobj(source, target)
            """)
        for archive in ["dotdata.tar", "dotdata.tar.gz", "flipped.tar", "flipped.tar.gz"] {
            let failure = try #require(fixtures.extract(archive, to: archive + ".out"), "\(archive) extracted past its damage")
            #expect(failure.reason.contains("Damaged tar archive"), "\(archive): \(failure)")
            #expect(!failure.reason.contains("cannot be read"), "\(archive): \(failure)")
        }
        fixtures.expectOnly(["dotdata.tar", "dotdata.tar.gz", "flipped.tar", "flipped.tar.gz"])
    }

    @Test func hardLinksAreExtractedAsHardLinks() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try FileManager.default.createDirectory(atPath: fixtures.path("src/app/bin"), withIntermediateDirectories: true)
        try "tool\n".write(toFile: fixtures.path("src/app/bin/tool"), atomically: false, encoding: .utf8)
        try fixtures.run(["ln", "src/app/bin/tool", "src/app/bin/alias"])
        try fixtures.run(["tar", "-cf", "gnu.tar", "-C", "src", "app"])
        try fixtures.run(["tar", "--format=pax", "-czf", "pax.tar.gz", "-C", "src", "app"])
        for archive in ["gnu.tar", "pax.tar.gz"] {
            #expect(fixtures.extract(archive, to: archive + ".out", strip: 1) == nil)
            let tool = try #require(FileTree.status(fixtures.path(archive + ".out/bin/tool")))
            let alias = try #require(FileTree.status(fixtures.path(archive + ".out/bin/alias")))
            #expect(tool.st_ino == alias.st_ino && tool.st_nlink == 2, "one file with two names")
            #expect(fixtures.text(archive + ".out/bin/alias") == "tool\n")
        }
    }

    private func readBytes(_ folder: String, _ name: [UInt8]) throws -> [UInt8] {
        let path = BytePath(folder).appending([name])
        let fd = path.withCString { open($0, O_RDONLY) }
        try #require(fd >= 0)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &buffer, buffer.count)
        return Array(buffer.prefix(max(count, 0)))
    }
}
