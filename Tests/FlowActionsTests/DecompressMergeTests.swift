import FlowFiles
import FlowTestSupport
import Foundation
import Glibc
import Testing

@testable import FlowActions

/// A merge into an existing `to` that fails part-way leaves `to` as it was.
@Suite struct DecompressMergeTests {
    static let names = (UInt8(ascii: "a")...UInt8(ascii: "p")).map { String(UnicodeScalar($0)) }

    /// `to` holds 16 files and a folder `zz`; the archive replaces all 17 files and adds two. Moving into
    /// `zz`, last in name order, fails: as root (whom permission bits do not stop) `zz` is a
    /// tmpfs of its own, so a rename into it is EXDEV; otherwise `zz` is read-only.
    @Test func aMergeThatFailsPartWayPutsBackEveryFileItReplaced() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        let files = Self.names + ["zz/inner"]
        // Also new files and a new folder, which the failed merge must take out again.
        let added = ["n0", "newdir/x"]
        try fixtures.python(
            "with tarfile.open('new.tar', 'w') as t:\n"
                + "    for n in [\((files + added).map { "'\($0)'" }.joined(separator: ", "))]:\n"
                + "        data = b'new ' + n.encode()\n"
                + "        i = tarfile.TarInfo(n); i.size = len(data); t.addfile(i, io.BytesIO(data))\n")
        try FileManager.default.createDirectory(atPath: fixtures.path("out/zz"), withIntermediateDirectories: true)
        let mounted = geteuid() == 0 && SmallDisk.mount(at: fixtures.path("out/zz"), kilobytes: 64)
        defer { if mounted { SmallDisk.unmount(fixtures.path("out/zz")) } }
        for name in files {
            try Data("old \(name)".utf8).write(to: URL(fileURLWithPath: fixtures.path("out/" + name)))
        }
        chmod(fixtures.path("out/c"), 0o640)
        if !mounted { chmod(fixtures.path("out/zz"), 0o555) }
        let before = try Self.snapshot(fixtures.path("out"))
        defer { chmod(fixtures.path("out/zz"), 0o755) }
        try #require(mounted || geteuid() != 0, "as root, the test needs a tmpfs to make the merge fail")

        let failure = try #require(fixtures.extract("new.tar"))

        #expect(failure.reason.contains("zz/inner"), "\(failure.reason)")
        #expect(try Self.snapshot(fixtures.path("out")) == before)
        fixtures.expectOnly(["new.tar", "out"])
    }

    /// A successful merge leaves nothing aside.
    @Test func aMergeThatSucceedsLeavesNoFolderAside() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            "with tarfile.open('new.tar', 'w') as t:\n"
                + "    i = tarfile.TarInfo('a'); i.size = 3; t.addfile(i, io.BytesIO(b'new'))\n")
        try FileManager.default.createDirectory(atPath: fixtures.path("out"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: fixtures.path("out/a")))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: fixtures.path("out/b")))
        #expect(fixtures.extract("new.tar") == nil)
        #expect(fixtures.text("out/a") == "new")
        #expect(fixtures.text("out/b") == "mine")
        fixtures.expectOnly(["new.tar", "out"])
    }

    /// As root (where modes are restored, as `bsdtar -x` restores them for root), an archive's
    /// folder entry gives an existing folder of `to` its mode, as bsdtar and GNU tar set it: a
    /// release that makes `conf/` private (0700) merged into last release's `to` left it 0755,
    /// readable by everyone, green. A folder the archive has no entry for (`plain/`, only the
    /// parent of `plain/y`) keeps its own mode, as in bsdtar; so does every existing folder for
    /// another user, as bsdtar leaves them.
    @Test func aMergeGivesAnExistingFolderTheModeOfTheArchivesEntryForItAsBsdtarDoes() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            "with tarfile.open('new.tar', 'w') as t:\n"
                + "    i = tarfile.TarInfo('conf'); i.type = tarfile.DIRTYPE; i.mode = 0o700; t.addfile(i)\n"
                + "    i = tarfile.TarInfo('open'); i.type = tarfile.DIRTYPE; i.mode = 0o755; t.addfile(i)\n"
                + "    for n in ['conf/key', 'open/x', 'plain/y']:\n"
                + "        i = tarfile.TarInfo(n); i.size = 3; i.mode = 0o600; t.addfile(i, io.BytesIO(b'new'))\n")
        for to in ["out", "bsdtar"] {
            for (folder, mode) in [("conf", mode_t(0o755)), ("open", 0o700), ("plain", 0o711)] {
                try FileManager.default.createDirectory(atPath: fixtures.path("\(to)/\(folder)"), withIntermediateDirectories: true)
                try Data("old".utf8).write(to: URL(fileURLWithPath: fixtures.path("\(to)/\(folder)/old")))
                chmod(fixtures.path("\(to)/\(folder)"), mode)
            }
        }
        try fixtures.run(["bsdtar", "-xf", fixtures.path("new.tar"), "-C", fixtures.path("bsdtar")])

        #expect(fixtures.extract("new.tar") == nil)
        func mode(_ path: String) -> String { FileTree.status(fixtures.path(path)).map { String($0.st_mode & 0o7777, radix: 8) } ?? "missing" }
        for folder in ["conf", "open", "plain"] {
            #expect(mode("out/" + folder) == mode("bsdtar/" + folder), "\(folder)")
            #expect(fixtures.text("out/\(folder)/old") == "old")
        }
        #expect(mode("out/conf") == (geteuid() == 0 ? "700" : "755"))
        #expect(mode("out/plain") == "711")
        fixtures.expectOnly(["bsdtar", "new.tar", "out"])
    }

    /// A merge that fails after it gave a folder the archive's mode (as root) puts the old mode back.
    @Test func aMergeThatFailsPutsBackTheModeItGaveAFolder() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            "with tarfile.open('new.tar', 'w') as t:\n"
                + "    i = tarfile.TarInfo('conf'); i.type = tarfile.DIRTYPE; i.mode = 0o700; t.addfile(i)\n"
                + "    for n in ['conf/key', 'zz/inner']:\n"
                + "        i = tarfile.TarInfo(n); i.size = 3; t.addfile(i, io.BytesIO(b'new'))\n")
        try FileManager.default.createDirectory(atPath: fixtures.path("out/conf"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: fixtures.path("out/zz"), withIntermediateDirectories: true)
        // Moving into `zz`, after `conf` in name order, fails: a tmpfs of its own as root (EXDEV), else read-only.
        let mounted = geteuid() == 0 && SmallDisk.mount(at: fixtures.path("out/zz"), kilobytes: 64)
        defer { if mounted { SmallDisk.unmount(fixtures.path("out/zz")) } }
        try #require(mounted || geteuid() != 0, "as root, the test needs a tmpfs to make the merge fail")
        chmod(fixtures.path("out/conf"), 0o755)
        if !mounted { chmod(fixtures.path("out/zz"), 0o555) }
        defer { chmod(fixtures.path("out/zz"), 0o755) }
        let before = try Self.snapshot(fixtures.path("out"))

        let failure = try #require(fixtures.extract("new.tar"))

        #expect(failure.reason.contains("zz/inner"), "\(failure.reason)")
        #expect(try Self.snapshot(fixtures.path("out")) == before)
    }

    /// A staging folder a killed flowrun left beside `to` (no one holds its lock) is removed by
    /// the next extraction there.
    @Test func aStagingFolderLeftByAKilledRunIsRemovedByTheNextOne() throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.python(
            "with tarfile.open('new.tar', 'w') as t:\n"
                + "    i = tarfile.TarInfo('a'); i.size = 3; t.addfile(i, io.BytesIO(b'new'))\n")
        let leftover = fixtures.path(".out.flowrun-killed1")
        try FileManager.default.createDirectory(atPath: leftover + "/deep", withIntermediateDirectories: true)
        try Data("half".utf8).write(to: URL(fileURLWithPath: leftover + "/deep/file"))
        LeftoverSweep.shared.forget(fixtures.folder)
        #expect(fixtures.extract("new.tar") == nil)
        fixtures.expectOnly(["new.tar", "out"])
    }

    /// Each file's path, kind, mode and contents, and each folder's, under `root`.
    static func snapshot(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        while let name = enumerator.nextObject() as? String {
            let info = try #require(FileTree.status(root + "/" + name))
            let contents = FileTree.isDirectory(info) ? "folder" : (try? String(contentsOfFile: root + "/" + name, encoding: .utf8)) ?? "?"
            result[name] = "\(String(info.st_mode, radix: 8)) \(info.st_ino) \(contents)"
        }
        return result
    }
}
