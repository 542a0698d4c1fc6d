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
