import Foundation
import Testing

@testable import FlowActions

private typealias Support = CombineTestSupport

/// `base` and `prefix` of a combine archive, checked by the entry names `bsdtar -t` lists, as a
/// user would check a release tarball.
@Suite struct CombineArchiveNamingTests {
    @Test(arguments: ["tar", "tar.gz", "zip"])
    func entriesAreNamedRelativeToBaseWithThePrefixInFront(format: String) async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("binary", to: "\(folder)/build/bin/app")
        try Support.write("a", to: "\(folder)/build/share/a.txt")
        try Support.write("b", to: "\(folder)/build/share/b.txt")
        let task = try Support.task(
            """
            inputs: [build/bin/app, "build/share/*.txt"]
            to: dist/app.\(format)
            format: \(format)
            base: build
            prefix: app-1.0/
            """, in: folder)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded)
        #expect(try Self.bsdtarList("\(folder)/dist/app.\(format)") == ["app-1.0/bin/app", "app-1.0/share/a.txt", "app-1.0/share/b.txt"])
    }

    @Test func withoutBaseNamesAreRelativeToTheWorkdirAndThePrefixIsPrependedAsWritten() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("notes", to: "\(folder)/docs/NOTES.md")
        // As `git archive --prefix=pkg-`: no slash is added, so the prefix joins the first name.
        let task = try Support.task("inputs: [docs/NOTES.md]\nto: out.tar\nformat: tar\nprefix: pkg-", in: folder)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded)
        #expect(try Self.bsdtarList("\(folder)/out.tar") == ["pkg-docs/NOTES.md"])
    }

    @Test func aBaseOfTheRootNamesEntriesByTheirWholePath() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("x", to: "\(folder)/x.txt")
        let task = try Support.task("inputs: [x.txt]\nto: out.tar\nformat: tar\nbase: /", in: folder)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded)
        #expect(try Self.bsdtarList("\(folder)/out.tar") == [String(folder.dropFirst()) + "/x.txt"])
    }

    /// A file whose name starts with a combining mark is in the workdir like any other: its
    /// entry is its name, not its absolute path (the `/` before it and the mark make one
    /// Character, so a Character-wise prefix test missed the workdir).
    @Test(arguments: ["tar", "zip"])
    func aNameStartingWithACombiningMarkIsNamedRelativeToTheWorkdir(format: String) async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("x", to: "\(folder)/\u{301}x.txt")
        let task = try Support.task("inputs: [\"*.txt\"]\nto: out.\(format)\nformat: \(format)", in: folder)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded)
        #expect(try Self.bsdtarList("\(folder)/out.\(format)").map { Array($0.utf8) } == [Array("\u{301}x.txt".utf8)])
    }

    /// An input in a sibling folder whose name is the workdir's in NFD (`../cafe\u{301}` beside
    /// the workdir `café`) is another folder on Linux: it is named by its whole path, as any
    /// file outside the workdir, not as if it were in the workdir.
    @Test func anInputInTheWorkdirsNFDSiblingIsNamedByItsWholePath() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let workdir = "\(folder)/caf\u{E9}"
        try FileManager.default.createDirectory(atPath: workdir, withIntermediateDirectories: true)
        try Support.write("other folder", to: "\(folder)/cafe\u{301}/f.txt")
        let task = try Support.task("inputs: [\"../cafe\u{301}/f.txt\"]\nto: out.tar\nformat: tar", in: workdir)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded)
        // bsdtar lists names in NFC: compared as Strings (canonically), it is the path that
        // must be whole.
        #expect(try Self.bsdtarList("\(workdir)/out.tar") == [String(folder.dropFirst()) + "/cafe\u{301}/f.txt"])
    }

    /// A pattern inside `base` cannot reach outside it through a wildcard: `.*` does not match
    /// `..` (folders are listed as bash 5.2 lists them, without `.` and `..`; a literal `..` is
    /// refused when the workflow is planned). The attempt fails naming the pattern, and writes
    /// nothing.
    @Test func aDotWildcardDoesNotReachOutsideBaseAndWritesNothing() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("secret", to: "\(folder)/outside.txt")
        try FileManager.default.createDirectory(atPath: "\(folder)/build", withIntermediateDirectories: true)
        let task = try Support.task("inputs: [\"build/.*/outside.txt\"]\nto: out.tar\nformat: tar\nbase: build", in: folder)

        let attempt = await Support.run(task)

        let reason = try #require(Support.failureReason(attempt))
        #expect(reason == "input pattern 'build/.*/outside.txt' matches no file")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/out.tar"))
    }

    /// The names `bsdtar -tf` lists, one a line.
    static func bsdtarList(_ archive: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["LC_ALL=C.UTF-8", "bsdtar", "-tf", archive]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
