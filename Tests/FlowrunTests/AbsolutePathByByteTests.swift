import Foundation
import Testing

@testable import flowrun

/// A path is absolute when its first byte is `/`, as the kernel reads it. To String's
/// `hasPrefix("/")`, a `/` and a combining mark after it (U+0301) are one Character, which is no
/// `/`: `/\u{301}x/...` was taken for a relative path and read from the workflow's folder, where
/// a folder `\u{301}x` gave another file than the one named. Each test keeps such a folder beside
/// the workflow, and none at the root (`/\u{301}x` does not exist): the path named is missing.
@Suite struct AbsolutePathByByteTests {
    static let mark = "\u{301}x"
    static let rooted = "/\u{301}x"

    @Test func anIncludeFromTheRootIsNotReadFromTheWorkflowsFolder() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ninclude: {lib: \"\(Self.rooted)/lib.yaml\"}\ntasks:\n  app: {shell: 'true'}\n",
            files: ["\(Self.mark)/lib.yaml": "version: 1\ntasks:\n  wrong: {shell: 'true'}\n"])
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2, "\(result.stdout)")
        #expect(result.stderr.contains("included file '\(Self.rooted)/lib.yaml' does not exist"), "\(result.stderr)")
    }

    @Test func aDotenvFromTheRootIsNotReadFromTheWorkflowsFolder() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ndotenv: [\"\(Self.rooted)/.env\"]\ntasks:\n  app: {shell: 'true'}\n",
            files: ["\(Self.mark)/.env": "WRONG=1\n"])
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2, "\(result.stdout)")
        #expect(result.stderr.contains("dotenv file '\(Self.rooted)/.env' does not exist"), "\(result.stderr)")
    }

    /// An included file's relative workdir is read from its folder; one from the root is kept.
    @Test func anIncludedTasksWorkdirFromTheRootIsKept() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ninclude: {lib: lib/tasks.yaml}\ntasks:\n  app: {needs: lib:where, shell: 'true'}\n",
            files: [
                "lib/tasks.yaml": "version: 1\ntasks:\n  where: {workdir: \"\(Self.rooted)\", shell: pwd}\n",
                "lib/\(Self.mark)/keep": "",
            ])
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "--no-record", "flow.yaml"], in: folder.url)
        #expect(result.status != 0)
        #expect(!result.stdout.contains("lib/\(Self.mark)"), "\(result.stdout)")
        #expect((result.stdout + result.stderr).contains("workdir '\(Self.rooted)'"), "\(result.stdout)\(result.stderr)")
    }

    /// `-d DIR FILE` reads a relative FILE from DIR, and a FILE from the root as it is.
    @Test func aFileFromTheRootIsNotReadFromDir() async throws {
        let folder = try WorkflowFolder("version: 1\ntasks:\n  app: {shell: 'true'}\n")
        try folder.write("sub/\(Self.mark)/flow.yaml", "version: 1\ntasks:\n  wrong: {shell: 'true'}\n")
        let result = try await FlowrunBinary.run(["validate", "-d", "sub", "\(Self.rooted)/flow.yaml"], in: folder.url)
        #expect(result.status != 0, "\(result.stdout)")
        #expect(result.stderr.contains(Self.rooted), "\(result.stderr)")
    }

    @Test func completionOfAFileOrItsTasksFromTheRootLooksNotInDir() async throws {
        let folder = try WorkflowFolder("version: 1\ntasks:\n  app: {shell: 'true'}\n")
        try folder.write("sub/\(Self.mark)/flow.yaml", "version: 1\ntasks:\n  wrong: {shell: 'true'}\n")
        #expect(try await CompletionTests.bash(["run", "-d", "sub", "\(Self.rooted)/"], in: folder.url) == [])
        #expect(try await CompletionTests.bash(["run", "-d", "sub", "\(Self.rooted)/flow.yaml", ""], in: folder.url) == [])
        // The same without the mark: found in DIR.
        try folder.write("sub/x/flow.yaml", "version: 1\ntasks:\n  right: {shell: 'true'}\n")
        #expect(try await CompletionTests.bash(["run", "-d", "sub", "x/flow.yaml", ""], in: folder.url) == ["right"])
    }

    /// A problem in an included or dotenv file names it from the current folder, as the
    /// workflow was named: `dir/\u{301}flow.yaml` held no `/` to String, and its problems
    /// named `lib.yaml` and `.env`, files of the current folder.
    @Test func problemsInFilesBesideAWorkflowNamedWithACombiningMarkNameTheirFolder() async throws {
        let folder = try WorkflowFolder("version: 1\ntasks: {}\n")
        try folder.write(
            "dir/\(Self.mark)flow.yaml", "version: 1\ndotenv: [.env]\ninclude: {lib: lib.yaml}\ntasks:\n  app: {shell: 'true'}\n")
        try folder.write("dir/lib.yaml", "version: 1\ntasks:\n  build: {shell: 'true', neds: x}\n")
        try folder.write("dir/.env", "1X=2\n")
        let result = try await FlowrunBinary.run(["validate", "dir/\(Self.mark)flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("dir/lib.yaml:3:"), "\(result.stderr)")
        #expect(result.stderr.contains("dir/.env:1:1:"), "\(result.stderr)")
    }

    /// bash completes by bytes: `cafe` starts `cafe\u{301}.yaml` (é written as e and a
    /// combining mark, as macOS names files), and `sub/\u{301}` names the folder `sub/`.
    @Test func completionMatchesNamesByBytes() async throws {
        let folder = try WorkflowFolder("version: 1\ntasks:\n  app: {shell: 'true'}\n")
        try folder.write("cafe\u{301}.yaml", "version: 1\ntasks: {}\n")
        try folder.write("sub/\(Self.mark).yaml", "version: 1\ntasks: {}\n")
        #expect(try await CompletionTests.bash(["run", "cafe"], in: folder.url) == ["cafe\u{301}.yaml"])
        #expect(try await CompletionTests.bash(["run", "sub/\u{301}"], in: folder.url) == ["sub/\(Self.mark).yaml"])
    }

    /// An include cycle names each file from the root file's folder, also one in a folder
    /// starting with a combining mark (it was `../NAME-OF-THE-FOLDER/\u{301}a/flow.yaml`).
    @Test func anIncludeCycleThroughAFolderStartingWithACombiningMarkNamesItFromTheRootFolder() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ninclude: {a: \"\u{301}a/flow.yaml\"}\ntasks:\n  t: {shell: 'true'}\n",
            files: ["\u{301}a/flow.yaml": "version: 1\ninclude: {top: ../flow.yaml}\ntasks:\n  t: {shell: 'true'}\n"])
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("include cycle: flow.yaml -> \u{301}a/flow.yaml -> flow.yaml\n"), "\(result.stderr)")
    }

    /// `caf\u{E9}.yaml` and `cafe\u{301}.yaml` are two files (String's == takes them for one):
    /// one including the other is no cycle.
    @Test func filesNamedInNFCAndNFDAreNoIncludeCycle() async throws {
        let folder = try WorkflowFolder("version: 1\ninclude: {a: \"caf\u{E9}.yaml\"}\ntasks:\n  t: {shell: 'true'}\n")
        // Not a dictionary's keys: to it, the two names are one.
        try folder.write("caf\u{E9}.yaml", "version: 1\ninclude: {b: \"cafe\u{301}.yaml\"}\ntasks:\n  t: {shell: 'true'}\n")
        try folder.write("cafe\u{301}.yaml", "version: 1\ntasks:\n  t: {shell: 'true'}\n")
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// A PATH folder from the root is searched as it is, not in the task's workdir; and PATH is
    /// split at each `:`, also one followed by a combining mark.
    @Test func aPathFolderIsReadByBytes() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              rooted: {env: {PATH: "\(Self.rooted)"}, shell: [tool]}
              split: {env: {PATH: "bin:\u{301}y"}, shell: [tool]}

            """)
        for path in ["\(Self.mark)/tool", "bin/tool"] {
            try folder.write(path, "#!/bin/sh\necho ran \(path)\n")
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.appendingPathComponent(path).path)
        }
        let rooted = try await FlowrunBinary.run(["run", "--events", "plain", "--no-record", "flow.yaml", "rooted"], in: folder.url)
        #expect(rooted.status != 0)
        #expect(!rooted.stdout.contains("ran"), "\(rooted.stdout)")
        #expect((rooted.stdout + rooted.stderr).contains("cannot run 'tool'"), "\(rooted.stdout)\(rooted.stderr)")
        let split = try await FlowrunBinary.run(["run", "--events", "plain", "--no-record", "flow.yaml", "split"], in: folder.url)
        #expect(split.status == 0, "\(split.stdout)\(split.stderr)")
        #expect(split.stdout.contains("ran bin/tool"), "\(split.stdout)")
    }

    /// `to: out/\u{301}app`: `out/` is made, and the archive unpacked into `\u{301}app` in it
    /// (split by Characters, the staging folder was asked for in the workflow's folder, as
    /// `.out/\u{301}app...`, and the task failed).
    @Test func aDecompressIntoANameStartingWithACombiningMarkMakesItsFolder() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ntasks:\n  unpack: {decompress: {from: app.tar.gz, to: \"out/\u{301}app\", strip_components: 1}}\n")
        let asset = FlowrunBinary.repositoryRoot.appendingPathComponent("workflows/assets/demo-app-1.0.tar.gz")
        try FileManager.default.copyItem(at: asset, to: folder.url.appendingPathComponent("app.tar.gz"))
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "--no-record", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out/\u{301}app/VERSION").path))
    }

    /// The export names a workflow from the root by its path, not as one in the current folder.
    @Test func theExportNamesAWorkflowFromTheRootAsItIs() {
        #expect(ExportCommand.relative("\(Self.rooted)/flow.yaml", to: "/work/repo") == "\(Self.rooted)/flow.yaml")
        #expect(ExportCommand.relative("lib/flow.yaml", to: "/work/repo") == "lib/flow.yaml")
    }

    /// An archive's prefix is checked by bytes: `../\u{301}x` climbs out of the folder, and
    /// `/\u{301}x` is absolute.
    @Test func aCombinePrefixIsCheckedByBytes() async throws {
        for prefix in ["../\(Self.mark)/", "\(Self.rooted)/"] {
            let folder = try WorkflowFolder(
                "version: 1\ntasks:\n  pack: {combine: {inputs: [a.txt], to: out.tar, format: tar, prefix: \"\(prefix)\"}}\n", files: ["a.txt": "a\n"])
            let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
            #expect(result.status == 2, "\(prefix): \(result.stdout)")
            #expect(result.stderr.contains("invalid prefix"), "\(result.stderr)")
        }
    }

    /// `file://PATH?QUERY`: curl reads PATH, the query left out, also one starting with a
    /// combining mark.
    @Test func aFileURLsQueryIsLeftOutByBytes() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ntasks:\n  get: {download: {url: \"file://${FLOWRUN_WORKFLOW_DIR}/source.txt?\(Self.mark)\", to: out.txt}}\n",
            files: ["source.txt": "fresh\n"])
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "--no-record", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try folder.read("out.txt") == "fresh\n")
    }
}
