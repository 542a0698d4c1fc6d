import Foundation
import Testing

/// Digests that `decompress` and `combine` compute while they read and write (rather than the
/// bookkeeping reading the files back) keep the up-to-date rule whole: a second run is a
/// no-op, and a file edited afterwards is seen.
@Suite struct StreamedDigestRunTests {
    static let workflow = """
        version: 1
        tasks:
          unpack: {decompress: {from: app.tar.gz, to: out}}
          pack: {needs: unpack, combine: {inputs: [out/app/a.txt, out/app/b.txt], to: joined.txt}}

        """

    @Test func aSecondRunIsANoOpAndAnEditedOutputIsSeen() async throws {
        let project = try UpToDateTests.Project(Self.workflow, files: ["src/app/a.txt": "one\n", "src/app/b.txt": "two\n"])
        try project.shell("tar -czf app.tar.gz -C src app")

        let first = try await project.run()
        #expect(first.ran == ["unpack", "pack"])
        #expect(try project.read("joined.txt") == "one\ntwo\n")
        let second = try await project.run()
        #expect(second.ran.isEmpty)
        #expect(second.upToDate == ["unpack", "pack"])

        // An extracted file edited: the extraction runs again and puts it back.
        try project.write("out/app/a.txt", "edited\n")
        let third = try await project.run()
        #expect(third.ran.contains("unpack"))
        #expect(try project.read("out/app/a.txt") == "one\n")

        // The combined file edited: only the combine runs again.
        try project.write("joined.txt", "edited\n")
        let fourth = try await project.run()
        #expect(fourth.ran == ["pack"])
        #expect(try project.read("joined.txt") == "one\ntwo\n")
        let fifth = try await project.run()
        #expect(fifth.ran.isEmpty)
    }

    /// The archive replaced by another: the extraction runs again.
    @Test func aReplacedArchiveIsSeen() async throws {
        let project = try UpToDateTests.Project(Self.workflow, files: ["src/app/a.txt": "one\n", "src/app/b.txt": "two\n"])
        try project.shell("tar -czf app.tar.gz -C src app")
        #expect(try await project.run().ran == ["unpack", "pack"])
        try project.write("src/app/b.txt", "three\n")
        try project.shell("tar -czf app.tar.gz -C src app")
        let second = try await project.run()
        #expect(second.ran == ["unpack", "pack"])
        #expect(try project.read("joined.txt") == "one\nthree\n")
    }
}
