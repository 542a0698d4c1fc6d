import Foundation
import Testing

/// A file whose name is not UTF-8 (latin-1 `b\xe9.txt`, as an archive may extract it byte for
/// byte) cannot be held in a Swift String: the folder listing gave a name with U+FFFD that no
/// stat reaches, so the up-to-date check left the file out of its fingerprint. An edit to it, or
/// its removal, then left the task up to date with a stale output, where make rebuilds. Such a
/// file now makes its task run every time, on the side of running rather than skipping.
@Suite struct NonUTF8NameUpToDateTests {
    typealias Project = UpToDateTests.Project

    @Test func aShellTaskWhoseGlobMatchesANonUTF8NameRunsAgainAfterThatFileChanges() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              join: {inputs: ['parts/*.txt'], outputs: [all.txt], shell: 'cat parts/*.txt > all.txt'}

            """, files: ["parts/a.txt": "a\n"])
        try project.shell("printf 'one\\n' > parts/b$(printf '\\351').txt")
        #expect(try await project.run().ran == ["join"])
        #expect(try project.read("all.txt") == "a\none\n")

        try project.shell("printf 'two\\n' > parts/b$(printf '\\351').txt")
        #expect(try await project.run().ran == ["join"])
        #expect(try project.read("all.txt") == "a\ntwo\n")
    }

    @Test func aDecompressWhoseOutputHoldsANonUTF8NameExtractsAgainAfterThatFileIsRemoved() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              unpack: {decompress: {from: names.tar, to: out}}

            """, files: ["src/a.txt": "a\n"])
        try project.shell("printf 'latin\\n' > src/b$(printf '\\351').txt && tar -cf names.tar -C src .")
        #expect(try await project.run().ran == ["unpack"])

        try project.shell("rm out/b$(printf '\\351').txt")
        #expect(try await project.run().ran == ["unpack"])
        try project.shell("test \"$(cat out/b$(printf '\\351').txt)\" = latin")
    }
}
