import Foundation
import Testing

/// With no FILE, flowrun.yaml is looked up from the current folder up, as go-task and git do.
@Suite struct WorkflowDiscoveryTests {
    /// `project/flowrun.yaml`, whose task writes a file by a relative path, and an empty
    /// `project/src/deep`.
    static func project() throws -> (folder: TemporaryFolder, root: URL) {
        let folder = try TemporaryFolder()
        let root = folder.url.resolvingSymlinksInPath()
        try FileManager.default.createDirectory(at: root.appendingPathComponent("src/deep"), withIntermediateDirectories: true)
        let workflow = "version: 1\ntasks:\n  build: {shell: echo built > built.txt}\n  test: {needs: build, shell: echo tested > tested.txt}\n"
        try Data(workflow.utf8).write(to: root.appendingPathComponent("flowrun.yaml"))
        return (folder, root)
    }

    @Test func runInASubfolderRunsTheFlowrunYamlOfAParentWithPathsRelativeToIt() async throws {
        let (folder, root) = try Self.project()
        let result = try await FlowrunBinary.run(["--events", "plain"], in: root.appendingPathComponent("src/deep"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "flowrun: using \(root.path)/flowrun.yaml\n")
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("tested.txt").path))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("src/deep/tested.txt").path))
        _ = folder
    }

    @Test func aFirstWordThatIsATaskRunsThatTaskOfTheFileFound() async throws {
        let (folder, root) = try Self.project()
        let result = try await FlowrunBinary.run(["build", "--events", "plain"], in: root.appendingPathComponent("src"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("built.txt").path))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("tested.txt").path))
        let unknown = try await FlowrunBinary.run(["run", "biuld"], in: root)
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "flowrun: error: no task named 'biuld' in flowrun.yaml; did you mean 'build'?\n")
        _ = folder
    }

    @Test func dirSetsTheFolderToStartFromForEveryCommand() async throws {
        let (folder, root) = try Self.project()
        let elsewhere = try TemporaryFolder()
        let start = root.appendingPathComponent("src").path
        let list = try await FlowrunBinary.run(["list", "-d", start], in: elsewhere.url)
        #expect(list.status == 0)
        #expect(list.stdout.contains("* build:"))
        #expect(list.stderr == "flowrun: using \(root.path)/flowrun.yaml\n")
        let validate = try await FlowrunBinary.run(["validate", "--dir", root.path], in: elsewhere.url)
        #expect(validate.stdout == "\(root.path)/flowrun.yaml: ok (2 tasks)\n")
        let graph = try await FlowrunBinary.run(["graph", "--dir=\(root.path)", "test"], in: elsewhere.url)
        #expect(graph.stdout == "build\ntest <- build\n")
        let dryRun = try await FlowrunBinary.run(["run", "--dry-run", "-d", start], in: elsewhere.url)
        #expect(dryRun.status == 0)
        #expect(dryRun.stdout.contains("build"))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("built.txt").path))
        // A relative FILE is read from DIR, as `make -C DIR -f FILE` reads it.
        let named = try await FlowrunBinary.run(["validate", "-d", root.path, "flowrun.yaml"], in: elsewhere.url)
        #expect(named.stdout == "\(root.path)/flowrun.yaml: ok (2 tasks)\n")
        let missing = try await FlowrunBinary.run(["list", "-d", "no-such-folder"], in: elsewhere.url)
        #expect(missing.status == 2)
        #expect(missing.stderr == "flowrun: error: cannot look for the workflow file from no-such-folder (-d/--dir): no such folder\n")
        _ = folder
    }

    /// `-d DIR` before the command, as `git -C DIR status` and `make -C DIR target` take it.
    @Test func dirBeforeTheCommandAppliesToThatCommand() async throws {
        let (folder, root) = try Self.project()
        let elsewhere = try TemporaryFolder()
        let list = try await FlowrunBinary.run(["-d", root.path, "list"], in: elsewhere.url)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("* build:"))
        let validate = try await FlowrunBinary.run(["--dir=\(root.path)", "validate"], in: elsewhere.url)
        #expect(validate.stdout == "\(root.path)/flowrun.yaml: ok (2 tasks)\n")
        let graph = try await FlowrunBinary.run(["--dir", root.path, "graph", "test"], in: elsewhere.url)
        #expect(graph.stdout == "build\ntest <- build\n")
        // A task still runs as `flowrun -d DIR build`.
        let build = try await FlowrunBinary.run(["-d", root.path, "build", "--events", "plain"], in: elsewhere.url)
        #expect(build.status == 0, "\(build.stderr)")
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("built.txt").path))
        _ = folder
    }

    @Test func noWorkflowFoundNamesTheFoldersSearched() async throws {
        let folder = try TemporaryFolder()
        let deep = folder.url.resolvingSymlinksInPath().appendingPathComponent("a/b")
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        for arguments in [[], ["validate"], ["list"], ["graph"], ["run", "--dry-run"]] {
            let result = try await FlowrunBinary.run(arguments, in: deep)
            #expect(result.status == 2)
            #expect(
                result.stderr.hasPrefix(
                    "flowrun: error: no workflow file given, and no flowrun.yaml or flowrun.yml in \(deep.path), \(deep.deletingLastPathComponent().path), "))
        }
    }
}
