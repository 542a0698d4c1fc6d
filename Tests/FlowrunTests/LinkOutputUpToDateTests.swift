import Foundation
import Glibc
import Testing

/// A decompress task whose archive holds a link that leads nowhere (`l -> missing`), a link to
/// `.`, or an empty folder of mode 0000: the output walk followed links and took only regular
/// files, so `to` held no file, counted as a missing output, and every run extracted again. Such
/// entries are now stamped as themselves (a link by its target's text), so the second run is up
/// to date, and a link retargeted or removed by hand makes the next run extract again.
@Suite struct LinkOutputUpToDateTests {
    typealias Project = UpToDateTests.Project

    /// A project with `one.tar`, a pax tar of the single entry `entry` (Python's tarfile).
    func project(entry: String) throws -> Project {
        let project = try Project("version: 1\ntasks:\n  unpack: {decompress: {from: one.tar, to: out}}\n", files: [:])
        try project.shell(
            """
            python3 -c "import tarfile
            with tarfile.open('one.tar', 'w', format=tarfile.PAX_FORMAT) as t:
                \(entry)
                t.addfile(i)"
            """)
        return project
    }

    @Test(arguments: ["missing", "."])
    func aLinkEntryIsUpToDateThenRetargetedExtractsAgain(target: String) async throws {
        let project = try project(entry: "i = tarfile.TarInfo('l'); i.type = tarfile.SYMTYPE; i.linkname = '\(target)'")
        #expect(try await project.run().ran == ["unpack"])
        let second = try await project.run()
        #expect(second.ran.isEmpty && second.upToDate == ["unpack"])

        try project.shell("ln -sfn elsewhere out/l")
        #expect(try await project.run().ran == ["unpack"])
        try project.shell("test \"$(readlink out/l)\" = '\(target)'")
        #expect(try await project.run().upToDate == ["unpack"])

        try project.shell("rm out/l")
        #expect(try await project.run().ran == ["unpack"])
        try project.shell("test \"$(readlink out/l)\" = '\(target)'")
    }

    @Test func anEmptyFolderOfModeZeroIsUpToDate() async throws {
        let project = try project(entry: "i = tarfile.TarInfo('z'); i.type = tarfile.DIRTYPE; i.mode = 0")
        #expect(try await project.run().ran == ["unpack"])
        let second = try await project.run()
        #expect(second.ran.isEmpty && second.upToDate == ["unpack"])
        try project.shell("test -d out/z")
    }

    /// A link to a real folder was followed: retargeted to another folder holding the same
    /// files, the output looked unchanged and the task stayed up to date, with the link not as
    /// the archive has it. It is now stamped by its target's text, and not followed.
    @Test func aLinkToAFolderRetargetedToAFolderWithTheSameFilesExtractsAgain() async throws {
        let project = try project(
            entry: """
                f = tarfile.TarInfo('v1/f'); f.size = 2; t.addfile(f, __import__('io').BytesIO(b'hi'))
                    g = tarfile.TarInfo('v2/f'); g.size = 2; t.addfile(g, __import__('io').BytesIO(b'hi'))
                    i = tarfile.TarInfo('current'); i.type = tarfile.SYMTYPE; i.linkname = 'v1'
                """)
        #expect(try await project.run().ran == ["unpack"])
        #expect(try await project.run().upToDate == ["unpack"])
        try project.shell("ln -sfn v2 out/current")
        #expect(try await project.run().ran == ["unpack"])
        try project.shell("test \"$(readlink out/current)\" = v1")
        #expect(try await project.run().upToDate == ["unpack"])
    }

    @Test func aLinkBesideAFileIsPartOfTheOutput() async throws {
        // With a regular file beside it the task was up to date, but a retargeted link was not seen.
        let project = try project(
            entry: """
                f = tarfile.TarInfo('f'); f.size = 2; t.addfile(f, __import__('io').BytesIO(b'hi'))
                    i = tarfile.TarInfo('l'); i.type = tarfile.SYMTYPE; i.linkname = 'missing'
                """)
        #expect(try await project.run().ran == ["unpack"])
        #expect(try await project.run().upToDate == ["unpack"])
        try project.shell("ln -sfn elsewhere out/l")
        #expect(try await project.run().ran == ["unpack"])
        try project.shell("test \"$(readlink out/l)\" = missing")
    }
}

/// Run as another user than root, a second extraction of an archive with an empty folder of
/// mode 0000 into the same `to` (the archive changed, or `--force`) failed: the merge into the
/// existing `to` could not list the staged folder. It now extracts as the first time did.
@Suite struct UnreadableFolderMergeTests {
    @Test(.enabled(if: geteuid() == 0, "runs flowrun as the user nobody, which needs root"))
    func anEmptyFolderOfModeZeroExtractsAgainOverItselfAsAnotherUser() async throws {
        let project = try LinkOutputUpToDateTests().project(
            entry: "i = tarfile.TarInfo('z'); i.type = tarfile.DIRTYPE; i.mode = 0")
        // The temporary folder may be closed to others: nobody needs to reach into it.
        try project.shell("chmod a+rx . && chown -R nobody .")
        let user = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", FlowrunBinary.url.path, "run", "flow.yaml"]
        for arguments in [user, user + ["--force"]] {
            let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
            try project.shell("cd \(project.url.path) && \(quoted) > /dev/null")
        }
        try project.shell("test -d out/z && test \"$(stat -c %a out/z)\" = 0")
    }
}
