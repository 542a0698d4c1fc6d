import Crypto
import Foundation
import Testing

/// The compiled-plan cache as a user sees it: a rerun of an unchanged workflow takes its plan
/// from `.flowrun/plan-*.bin`, and any edit of the workflow, an included file or a dotenv file
/// is seen on the next run, as is a cache that is damaged or of another version.
@Suite struct PlanCacheRunTests {
    static let workflow = """
        version: 1
        dotenv: [.env]
        include: {lib: lib.yaml}
        tasks:
          greet: {needs: ["lib:part"], shell: 'echo "$GREETING" > greeting.txt'}

        """
    static let library = """
        version: 1
        tasks:
          part: {shell: 'echo part-one > part.txt'}

        """

    func project() throws -> WorkflowFolder {
        try WorkflowFolder(Self.workflow, files: ["lib.yaml": Self.library, ".env": "GREETING=hello\n"])
    }

    /// Runs the workflow; it must succeed.
    func run(_ folder: WorkflowFolder) async throws {
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr == "")
    }

    /// The cache file, once there is one.
    /// The first run makes the state folder (its record) and keeps the plan at its end; the
    /// next reads it and leaves it as it was.
    @Test func anUnchangedWorkflowsPlanIsKeptAndReadBack() async throws {
        let folder = try project()
        try await run(folder)
        let cache = try #require(folder.planCacheFile)
        let kept = WorkflowFolder.inode(cache)
        try await run(folder)
        #expect(WorkflowFolder.inode(cache) == kept, "a run of an unchanged workflow does not write the cache again")
        #expect(try folder.read("greeting.txt") == "hello\n")
    }

    /// Each edit keeps the file's size (and is made in the same second as the last run): only
    /// its contents tell it.
    @Test func editsOfTheWorkflowAnIncludedFileAndADotenvFileAreSeen() async throws {
        let folder = try project()
        try await run(folder)
        try await run(folder)
        #expect(folder.planCacheFile != nil)

        try folder.write(".env", "GREETING=jello\n")
        try await run(folder)
        #expect(try folder.read("greeting.txt") == "jello\n")

        try folder.write("lib.yaml", Self.library.replacingOccurrences(of: "part-one", with: "part-two"))
        try await run(folder)
        #expect(try folder.read("part.txt") == "part-two\n")

        try folder.write("flow.yaml", Self.workflow.replacingOccurrences(of: "greeting.txt", with: "greeting.txu"))
        try await run(folder)
        #expect(try folder.read("greeting.txu") == "jello\n")
    }

    /// A dotenv file that a task deletes is missing on the next run: that run fails as on a
    /// first run (the file is required), rather than running with the values it held.
    @Test func aDotenvFileDeletedByTheRunIsMissingOnTheNext() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            dotenv: [.env]
            tasks:
              use: {shell: 'echo "$GREETING" > greeting.txt; rm .env'}

            """, files: [".env": "GREETING=hello\n"])
        try await run(folder)
        #expect(try folder.read("greeting.txt") == "hello\n")
        let second = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        #expect(second.status == 2, "\(second.stdout)\(second.stderr)")
        #expect(second.stderr.contains("dotenv file '.env' does not exist"), "\(second.stderr)")
    }

    /// A secret value (`--env`, or the process environment, under a name that looks secret)
    /// is written to no file of the state folder: a plan that took one is not kept there (the
    /// record and the fingerprints keep digests only).
    @Test func aSecretTakenByThePlanIsWrittenToNoStateFile() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              fetch: {download: {url: "file://${FLOWRUN_WORKFLOW_DIR}/in-${UPLOAD_TOKEN}.txt", to: out.txt}}
              use: {shell: 'echo "$API_TOKEN" > token.txt'}

            """, files: ["in-s3cr3t-from-process.txt": "fetched\n"])
        let secrets = ["API_TOKEN": "s3cr3t-from-env", "UPLOAD_TOKEN": "s3cr3t-from-process"]
        for _ in 0..<2 {
            let result = try await FlowrunBinary.run(
                ["run", "--events", "plain", "--env", "API_TOKEN=s3cr3t-from-env", "flow.yaml"], in: folder.url,
                environment: ["UPLOAD_TOKEN": "s3cr3t-from-process"])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        #expect(try folder.read("token.txt") == "s3cr3t-from-env\n")
        #expect(try folder.read("out.txt") == "fetched\n")
        let state = folder.url.appendingPathComponent(".flowrun").path
        let files = try FileManager.default.subpathsOfDirectory(atPath: state)
        #expect(!files.isEmpty)
        for file in files {
            guard let bytes = FileManager.default.contents(atPath: state + "/" + file) else { continue }
            for (name, value) in secrets {
                #expect(bytes.range(of: Data(value.utf8)) == nil, "\(name)'s value is in .flowrun/\(file)")
            }
        }
    }

    /// A file with errors is never taken from the cache: its errors show as on a first run.
    @Test func aWorkflowWithErrorsShowsThemAsWithoutACache() async throws {
        let folder = try project()
        try await run(folder)
        try await run(folder)
        #expect(folder.planCacheFile != nil)
        let broken = Self.workflow.replacingOccurrences(of: "needs:", with: "neds: ")
        try folder.write("flow.yaml", broken)
        let cached = try await FlowrunBinary.run(["run", "flow.yaml"], in: folder.url)

        let fresh = try WorkflowFolder(broken, files: ["lib.yaml": Self.library, ".env": "GREETING=hello\n"])
        let uncached = try await FlowrunBinary.run(["run", "flow.yaml"], in: fresh.url)
        #expect(cached.status == 2 && uncached.status == 2)
        #expect(cached.stderr == uncached.stderr && cached.stderr.contains("neds"), "\(cached.stderr)")
    }

    /// A plan made with warnings is not kept: the warning shows on every run, as on the first.
    @Test func aWorkflowWithWarningsShowsThemOnEveryRun() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              build: {shell: ["true now", "x"], outputs: [out.txt]}

            """)
        for _ in 0..<3 {
            let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
            #expect(result.stderr.hasPrefix("flow.yaml:3:19: warning: the first item of 'shell'"), "\(result.stderr)")
        }
        #expect(folder.planCacheFile == nil)
    }

    @Test func aDamagedCacheIsIgnoredAndWrittenAgain() async throws {
        let folder = try project()
        try await run(folder)
        try await run(folder)
        let cache = try #require(folder.planCacheFile)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: cache))
        bytes[bytes.count - 3] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: cache))
        try folder.write(".env", "GREETING=again\n")
        try await run(folder)
        #expect(try folder.read("greeting.txt") == "again\n")
        let rewritten = try Data(contentsOf: URL(fileURLWithPath: cache))
        #expect(rewritten != bytes && rewritten.starts(with: Data("flowrun-plan\n".utf8)))
    }

    @Test func aCacheOfAnotherVersionIsIgnored() async throws {
        let folder = try project()
        try await run(folder)
        try await run(folder)
        let cache = try #require(folder.planCacheFile)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: cache))
        bytes[13] &+= 1  // the version, after the magic line
        try bytes.write(to: URL(fileURLWithPath: cache))
        let kept = WorkflowFolder.inode(cache)
        try await run(folder)
        #expect(WorkflowFolder.inode(cache) != kept, "written again")
        #expect(try Data(contentsOf: URL(fileURLWithPath: cache)) != bytes)
    }

    /// `--env` and the process environment are part of what a plan is made from.
    @Test func anotherEnvIsAnotherPlan() async throws {
        let folder = try project()
        try await run(folder)
        try await run(folder)
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "--env", "GREETING=override", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try folder.read("greeting.txt") == "override\n")
    }
    /// Of the process environment, the plan depends only on the names the workflow interpolates:
    /// a run after a `cd` (OLDPWD) or under another shell's `_` reads the kept plan; a run with
    /// another value of a name it reads plans again, and writes where that value says.
    @Test func onlyAnInterpolatedVariableIsAnotherPlan() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              out: {shell: 'mkdir -p "$OUT"; echo made > "$OUT/made.txt"', outputs: ["${OUT}/made.txt"]}

            """)
        func run(_ environment: [String: String]) async throws {
            let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url, environment: environment)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        }
        try await run(["OUT": "one", "OLDPWD": "/a", "_": "/bin/sh"])
        let cache = try #require(folder.planCacheFile)
        let kept = WorkflowFolder.inode(cache)
        try await run(["OUT": "one", "OLDPWD": "/b", "_": "/usr/bin/time", "UNRELATED": "1"])
        #expect(WorkflowFolder.inode(cache) == kept, "a variable the workflow does not read keeps the plan")
        try await run(["OUT": "two", "OLDPWD": "/b", "_": "/usr/bin/time"])
        #expect(WorkflowFolder.inode(cache) != kept, "a variable the workflow reads makes another plan")
        #expect(try folder.read("two/made.txt") == "made\n")
    }

    /// A dotenv value that took a process variable (`URL=https://${HOST}/x`) depends on it as a
    /// field interpolating `${HOST}` does: another HOST is another plan, not the kept one with
    /// the old URL.
    @Test func aVariableADotenvValueTookIsAnotherPlan() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ndotenv: .env\ntasks:\n  show: {shell: 'echo \"$URL\" > url.txt'}\n",
            files: [".env": "URL=https://${HOST}/x\nPORT=${PORT:-80}\n"])
        func run(_ environment: [String: String]) async throws -> String {
            let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url, environment: environment)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            return try folder.read("url.txt")
        }
        #expect(try await run(["HOST": "one"]) == "https://one/x\n")
        #expect(folder.planCacheFile != nil)
        #expect(try await run(["HOST": "two"]) == "https://two/x\n")
    }

    /// The digests of the tasks' definitions are kept with the plan, and a rerun takes them
    /// from there: a task whose command changed (an edit of the same size, within the same
    /// second) or whose env changed (its dotenv file) runs again all the same.
    @Test func aTaskWhoseCommandOrEnvChangedRunsAgainWithTheDigestsKeptWithThePlan() async throws {
        let workflow = """
            version: 1
            dotenv: [.env]
            tasks:
              make: {inputs: [in.txt], outputs: [out.txt], shell: 'echo "$GREETING one" > out.txt'}

            """
        let folder = try WorkflowFolder(workflow, files: ["in.txt": "source\n", ".env": "GREETING=hello\n"])
        /// Runs the workflow; whether `make` ran.
        func ran() async throws -> Bool {
            let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            return !(try EventStream(result.stdout).named("task.started").isEmpty)
        }
        #expect(try await ran())
        #expect(try await !ran())
        #expect(try await !ran(), "up to date with the plan and its digests read from the cache")
        try folder.write("flow.yaml", workflow.replacingOccurrences(of: "one", with: "two"))
        #expect(try await ran())
        #expect(try folder.read("out.txt") == "hello two\n")
        #expect(try await !ran())
        try folder.write(".env", "GREETING=jello\n")
        #expect(try await ran())
        #expect(try folder.read("out.txt") == "jello two\n")
        #expect(try await !ran())
    }

    /// The record keeps the workflow file's digest, taken from the plan's loading (the bytes read
    /// on a miss, the cache's check of its files on a hit) rather than by hashing the file again:
    /// it is the workflow's, not an included or dotenv file's, and follows each edit.
    @Test func eachRecordKeepsTheDigestOfTheWorkflowFileAsRun() async throws {
        let folder = try project()
        func digests() async throws -> [String] {
            let listed = try await FlowrunBinary.run(["runs", "--json", "flow.yaml"], in: folder.url)
            #expect(listed.status == 0, "\(listed.stderr)")
            let runs = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            return runs.compactMap { $0["digest"] as? String }
        }
        func expected() throws -> String {
            let bytes = try Data(contentsOf: folder.url.appendingPathComponent("flow.yaml"))
            return "sha256:" + SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        }
        let first = try expected()
        try await run(folder)  // the cache made
        try await run(folder)  // and read
        #expect(folder.planCacheFile != nil)
        #expect(try await digests() == [first, first])

        try folder.write("flow.yaml", Self.workflow.replacingOccurrences(of: "greeting.txt", with: "greeting.txu"))
        let second = try expected()
        #expect(second != first)
        try await run(folder)
        try await run(folder)
        #expect(try await digests() == [second, second, first, first])
    }
}
