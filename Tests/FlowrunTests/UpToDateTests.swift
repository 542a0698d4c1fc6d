import Foundation
import Glibc
import Testing

/// `inputs:` and `outputs:`: a task whose definition, env, inputs and needs are as at its last
/// success, and whose outputs are still there unchanged, is skipped as `up-to-date`.
@Suite struct UpToDateTests {
    /// A folder with `flow.yaml` and the files a test writes, run again and again.
    final class Project: WorkflowFolder {
        /// Runs `flowrun run --events jsonl flow.yaml arguments...`; the tasks that ran and those up to date.
        func run(_ arguments: [String] = []) async throws -> (ran: Set<String>, upToDate: Set<String>, events: EventStream) {
            let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"] + arguments, in: url)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let events = try EventStream(result.stdout)
            let ran = Set(events.named("task.started").compactMap(\.task))
            let upToDate = Set(events.named("task.skipped").filter { $0["reason"] as? String == "up-to-date" }.compactMap(\.task))
            return (ran, upToDate, events)
        }

        /// Runs `command` with sh in the folder; it must succeed.
        func shell(_ command: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", command]
            process.currentDirectoryURL = url
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(command)")
        }
    }

    /// a -> b -> c, and d beside them: each copies one file to another.
    static let chain = """
        version: 1
        env: {GREETING: hello}
        tasks:
          a: {inputs: [src/a.txt], outputs: [build/a.out], shell: 'mkdir -p build && cat src/a.txt > build/a.out'}
          b: {needs: a, inputs: [build/a.out], outputs: [build/b.out], shell: 'cat build/a.out > build/b.out; echo "$GREETING" >> build/b.out'}
          c: {needs: b, inputs: [build/b.out], outputs: [build/c.out], shell: 'cat build/b.out > build/c.out'}
          d: {inputs: [src/d.txt], outputs: [build/d.out], shell: 'mkdir -p build && cat src/d.txt > build/d.out'}

        """

    static func chainProject() throws -> Project {
        try Project(chain, files: ["src/a.txt": "one\n", "src/d.txt": "dee\n"])
    }

    @Test func aSecondRunWithNothingChangedRunsNothing() async throws {
        let project = try Self.chainProject()
        let first = try await project.run()
        #expect(first.ran == ["a", "b", "c", "d"])
        let second = try await project.run()
        #expect(second.ran.isEmpty)
        #expect(second.upToDate == ["a", "b", "c", "d"])
        let counts = second.events.named("workflow.finished").first?["counts"] as? [String: Any]
        #expect(counts?["skipped"] as? Int == 4 && counts?["up_to_date"] as? Int == 4 && counts?["succeeded"] as? Int == 0)
        #expect(FileManager.default.fileExists(atPath: project.url.appendingPathComponent(".flowrun/.gitignore").path))
    }

    @Test func aChangedInputRerunsThatTaskAndItsDependentsOnly() async throws {
        let project = try Self.chainProject()
        _ = try await project.run()
        try project.write("src/a.txt", "two, longer\n")
        let rerun = try await project.run()
        #expect(rerun.ran == ["a", "b", "c"])
        #expect(rerun.upToDate == ["d"])
        #expect(try project.read("build/c.out") == "two, longer\nhello\n")
    }

    @Test func touchingAnInputWithoutChangingItKeepsTheTaskUpToDate() async throws {
        let project = try Self.chainProject()
        _ = try await project.run()
        try project.write("src/a.txt", "one\n")  // a new inode and mtime, the same contents
        #expect(try await project.run().ran.isEmpty)
    }

    @Test func aChangedEnvRerunsTheTasksThatSeeIt() async throws {
        let project = try Self.chainProject()
        _ = try await project.run()
        // Every task's env changes: the workflow's env is each task's.
        let rerun = try await project.run(["--env", "GREETING=bonjour"])
        #expect(rerun.ran == ["a", "b", "c", "d"])
        #expect(try project.read("build/c.out") == "one\nbonjour\n")
        #expect(try await project.run(["--env", "GREETING=bonjour"]).ran.isEmpty)
    }

    @Test func aChangedCommandRerunsThatTaskAndItsDependents() async throws {
        let project = try Self.chainProject()
        _ = try await project.run()
        try project.write("flow.yaml", Self.chain.replacingOccurrences(of: "cat build/b.out > build/c.out", with: "cp build/b.out build/c.out"))
        #expect(try await project.run().ran == ["c"])
        try project.write("flow.yaml", Self.chain.replacingOccurrences(of: "echo \"$GREETING\"", with: "echo \"$GREETING!\""))
        #expect(try await project.run().ran == ["b", "c"])
    }

    @Test func aDeletedOrEditedOutputRerunsItsTask() async throws {
        let project = try Self.chainProject()
        _ = try await project.run()
        try project.remove("build/d.out")
        #expect(try await project.run().ran == ["d"])
        try project.write("build/c.out", "edited by hand\n")
        #expect(try await project.run().ran == ["c"])
        #expect(try project.read("build/c.out") == "one\nhello\n")
    }

    @Test func aChangedNeedRerunsItsDependentsEvenWithoutDeclaredFilesBetweenThem() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              gen: {inputs: [spec.txt], outputs: [gen.out], shell: 'cat spec.txt > gen.out'}
              use: {needs: gen, outputs: [use.out], shell: 'cat gen.out > use.out'}

            """, files: ["spec.txt": "v1\n"])
        _ = try await project.run()
        try project.write("spec.txt", "version 2\n")
        #expect(try await project.run().ran == ["gen", "use"])
        #expect(try project.read("use.out") == "version 2\n")
    }

    /// gen writes what a file it does not declare says (as `git describe > version.txt` would):
    /// its fingerprint is the same from run to run, what it makes is not.
    static let remadeNeed = """
        version: 1
        tasks:
          gen: {outputs: [gen.out], shell: 'cat stamp.txt > gen.out'}
          use: {needs: gen, outputs: [use.out], shell: 'cat gen.out > use.out'}

        """

    /// make remakes a target whose prerequisite was remade: deleting gen.out makes gen run
    /// again, and what it writes now differs, so use.out (made from the old gen.out) is stale.
    @Test func aNeedRemadeWithOtherContentsRerunsItsDependents() async throws {
        let project = try Project(Self.remadeNeed, files: ["stamp.txt": "v1\n"])
        #expect(try await project.run().ran == ["gen", "use"])
        try project.write("stamp.txt", "v2\n")
        try project.remove("gen.out")
        #expect(try await project.run().ran == ["gen", "use"])
        #expect(try project.read("use.out") == "v2\n")
        // Recorded so: the next run, and the one after (which takes the no-op's path), run nothing.
        #expect(try await project.run().ran.isEmpty)
        #expect(try await project.run().ran.isEmpty)
        // Remade with the same contents, it changes nothing for its dependents (contents count).
        try project.remove("gen.out")
        #expect(try await project.run().ran == ["gen"])
    }

    /// The same across `run --only` (what exported jobs run): use, run after gen was remade
    /// with other contents in a run of its own, runs again rather than keeping a stale use.out.
    @Test func onlyRunsADependentAgainWhenItsNeedWasRemadeWithOtherContents() async throws {
        let project = try Project(Self.remadeNeed, files: ["stamp.txt": "v1\n"])
        _ = try await project.run()
        try project.write("stamp.txt", "v2\n")
        try project.remove("gen.out")
        #expect(try await project.run(["--only", "gen"]).ran == ["gen"])
        #expect(try await project.run(["--only", "use"]).ran == ["use"])
        #expect(try project.read("use.out") == "v2\n")
        #expect(try await project.run(["--only", "use"]).ran.isEmpty)
        #expect(try await project.run().ran.isEmpty)
    }

    static let remadeNeedBehindAGroup = """
        version: 1
        tasks:
          gen: {outputs: [gen.out], shell: 'cat stamp.txt > gen.out'}
          all: {needs: gen}
          use: {needs: all, outputs: [use.out], shell: 'cat gen.out > use.out'}

        """

    /// The same through a group need: `--only use` takes the group `all` as done, which keeps
    /// no record to give use's fingerprint, so use runs (as make remakes a target whose
    /// prerequisite is phony) rather than being kept, by a record made the same way, with a
    /// use.out made from the old gen.out.
    @Test func onlyRunsADependentAgainWhenItsNeedIsAGroupTakenAsDone() async throws {
        let project = try Project(Self.remadeNeedBehindAGroup, files: ["stamp.txt": "v1\n"])
        _ = try await project.run()
        #expect(try await project.run(["--only", "use"]).ran == ["use"])
        try project.write("stamp.txt", "v2\n")
        try project.remove("gen.out")
        #expect(try await project.run(["--only", "gen"]).ran == ["gen"])
        #expect(try await project.run(["--only", "use"]).ran == ["use"])
        #expect(try project.read("use.out") == "v2\n")
    }

    /// A combine's `to` reached by another name through a link (`to` a link into the folder
    /// its glob reads, or the glob through a link to the output's folder) is left out of the
    /// inputs the check fingerprints, as combine leaves it out of what it reads: counted, it
    /// changed while the task ran, and the task ran on every run.
    @Test func aCombineWhoseOutputItsGlobReachesThroughALinkIsUpToDateNextTime() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              through: {combine: {inputs: ['real/*.txt'], to: link.txt}}
              view: {combine: {inputs: ['view/*.txt'], to: out/all.txt}}

            """, files: ["real/a.txt": "a\n", "out/b.txt": "b\n"])
        try project.shell("ln -s real/all.txt link.txt && ln -s out view")
        #expect(try await project.run().ran == ["through", "view"])
        let second = try await project.run()
        #expect(second.ran.isEmpty)
        #expect(second.upToDate == ["through", "view"])
        #expect(try project.read("real/all.txt") == "a\n")
        #expect(try project.read("out/all.txt") == "b\n")
        try project.write("real/a.txt", "a2\n")
        #expect(try await project.run().ran == ["through"])
        #expect(try project.read("real/all.txt") == "a2\n")
    }

    @Test func aRenamedTaskRunsAsNeverRanBefore() async throws {
        let project = try Self.chainProject()
        _ = try await project.run()
        try project.write("flow.yaml", Self.chain.replacingOccurrences(of: "  d: {", with: "  dee: {"))
        let rerun = try await project.run()
        #expect(rerun.ran == ["dee"])
        #expect(rerun.upToDate == ["a", "b", "c"])
    }

    @Test func aGlobThatGainsAFileRerunsItsTask() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              pack: {inputs: ['parts/**/*.txt'], outputs: [all.txt], shell: 'find parts -name "*.txt" | sort | xargs cat > all.txt'}

            """, files: ["parts/1.txt": "1\n", "parts/deep/2.txt": "2\n"])
        _ = try await project.run()
        #expect(try await project.run().ran.isEmpty)
        try project.write("parts/deeper/still/3.txt", "3\n")
        #expect(try await project.run().ran == ["pack"])
        #expect(try project.read("all.txt") == "1\n2\n3\n")
        try project.write("parts/notes.md", "not matched\n")
        #expect(try await project.run().ran.isEmpty)
    }

    @Test func aTaskWithoutInputsOrOutputsAlwaysRunsAndForceRunsEverything() async throws {
        let project = try Project(Self.chain + "  hello: {shell: echo hi}\n", files: ["src/a.txt": "one\n", "src/d.txt": "dee\n"])
        _ = try await project.run()
        #expect(try await project.run().ran == ["hello"])
        let forced = try await project.run(["--force"])
        #expect(forced.ran == ["a", "b", "c", "d", "hello"])
        #expect(try await project.run().ran == ["hello"], "a forced run records its successes")
    }

    @Test func aFailedTaskRunsAgainNextTime() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              flaky: {inputs: [in.txt], outputs: [out.txt], shell: 'cp in.txt out.txt; test -f ok'}

            """, files: ["in.txt": "x\n"])
        // Makes out.txt from in.txt, then fails: nothing is recorded.
        let failed = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: project.url)
        #expect(failed.status == 1)
        try project.write("ok", "")
        #expect(try await project.run().ran == ["flaky"])
        #expect(try await project.run().ran.isEmpty)
    }

    /// The journal keeps each success as it happens, as `.ninja_log` does, so that a flowrun
    /// killed midway keeps what had finished. A success whose files were hashed within their
    /// stamp's tick was held until the next task ended: killed during a long task, the run lost
    /// `maker` and `user`, and the next run redid both ("never ran", "changed need").
    @Test func successesBeforeALongTaskSurviveAKill() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              maker: {inputs: [src.txt], outputs: [made.txt], shell: 'cp src.txt made.txt'}
              user: {needs: maker, inputs: [made.txt], outputs: [used.txt], shell: 'cp made.txt used.txt'}
              long: {needs: user, shell: 'echo ready; until [ -e release ]; do sleep 0.05; done'}

            """, files: ["src.txt": "one\n", "release": ""])
        #expect(try await project.run().ran == ["maker", "user", "long"])
        try project.write("src.txt", "two\n")
        try FileManager.default.removeItem(at: project.url.appendingPathComponent("release"))
        let live = try LiveRun(["run", "--events", "jsonl", "flow.yaml"], in: project.url)
        #expect(await live.waitFor("\"line\":\"ready\""))
        // The journal names user's files once its success is in it (a hang guard on the old code).
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline, !(try journal(project).contains("used.txt")) {
            try await Task.sleep(for: .milliseconds(10))
        }
        live.send(SIGKILL)
        _ = await live.wait()
        try project.write("release", "")
        let next = try await project.run()
        #expect(next.upToDate == ["maker", "user"])
        #expect(next.ran == ["long"])
    }

    /// The task state's journal, as text (empty when there is none).
    func journal(_ project: Project) throws -> String {
        let folder = project.url.appendingPathComponent(".flowrun")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".journal") }
        return names.map { String(decoding: FileManager.default.contents(atPath: folder.appendingPathComponent($0).path) ?? Data(), as: UTF8.self) }
            .joined()
    }

    /// make, ninja and Bazel build again a target whose input changed while it was built: its
    /// output was made from what the input was before.
    @Test func anInputChangedWhileItsTaskRunsMakesItRunAgainNextTime() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              gen: {inputs: [in.txt], outputs: [out.txt], shell: 'cat in.txt > out.txt; if [ -e edit ]; then echo more >> in.txt; rm edit; fi'}

            """, files: ["in.txt": "one\n", "edit": ""])
        // A first run, whose inputs are hashed at the end: in.txt changed under it.
        #expect(try await project.run().ran == ["gen"])
        #expect(try await project.run().ran == ["gen"], "out.txt was made from the old in.txt")
        #expect(try project.read("out.txt") == "one\nmore\n")
        #expect(try await project.run().ran.isEmpty)
        // A run whose inputs are hashed at the start (the record matched all but them).
        try project.write("in.txt", "two\n")
        try project.write("edit", "")
        #expect(try await project.run().ran == ["gen"])
        #expect(try await project.run().ran == ["gen"], "out.txt was made from the old in.txt")
        #expect(try await project.run().ran.isEmpty)
    }

    /// `cp -p` (or `touch -r`) of a same-sized file onto an input gives it the old size, mtime
    /// and inode: the ctime still moves, and a file hashed right after it changed is hashed
    /// again next time.
    @Test func anInputReplacedWithItsOldSizeAndMtimeMakesItsTaskRunAgain() async throws {
        let project = try Self.chainProject()
        #expect(try await project.run().ran == ["a", "b", "c", "d"])
        try project.write("other.txt", "two\n")
        try project.shell("touch -r src/a.txt other.txt && cp -p other.txt src/a.txt")
        let rerun = try await project.run()
        #expect(rerun.ran == ["a", "b", "c"])
        #expect(try project.read("build/c.out") == "two\nhello\n")
    }

    /// A task that ran and succeeded but made no output it declares was shown as `would run:
    /// never ran`. It did run: the reason is the output it lacks, as make would say.
    @Test func dryRunNamesTheMissingOutputOfATaskThatRanWithoutMakingIt() async throws {
        let project = try Project(
            "version: 1\ntasks:\n  make: {outputs: [out.txt], shell: 'true'}\n  never: {outputs: [other.txt], shell: 'true', when: failure, needs: make}\n")
        #expect(try await project.run().ran == ["make"])
        let dry = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: project.url)
        let lines = dry.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains { $0.hasPrefix("make ") && $0.hasSuffix("would run: missing output out.txt") }, "\(dry.stdout)")
        #expect(lines.contains { $0.hasPrefix("never ") && $0.hasSuffix("would run: never ran") }, "\(dry.stdout)")
    }

    /// The reason was read from the newest run record alone: after `flowrun flow.yaml a` (a run
    /// of other tasks) the task that had run without making its output said `never ran`, and so
    /// did a task whose last run failed. Its last run is looked for past the runs it was not in.
    @Test func dryRunLooksPastRunsOfOtherTasksAndSaysALastFailure() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              a: {inputs: [in.txt], outputs: [a.out], shell: 'cp in.txt a.out'}
              b: {outputs: [b.out], shell: 'test -f fail && exit 3; true'}

            """, files: ["in.txt": "one\n"])
        #expect(try await project.run().ran == ["a", "b"])
        try project.write("in.txt", "two\n")
        #expect(try await project.run(["a"]).ran == ["a"])
        func reasons() async throws -> [String] {
            let dry = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: project.url)
            return dry.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("b ") }
        }
        #expect(try await reasons() == ["b  would run: missing output b.out"])

        try project.write("fail", "")
        #expect(try await FlowrunBinary.run(["run", "flow.yaml", "b"], in: project.url).status == 1)
        try project.remove("fail")
        _ = try await project.run(["a"])
        let failedRun = try #require(try await runs(project).dropFirst().first)
        #expect(try await reasons() == ["b  would run: failed in run \(failedRun) (exited with status 3)"])

        #expect(try await project.run(["--force"]).ran == ["a", "b"])
        #expect(try await reasons() == ["b  would run: missing output b.out"])
    }

    /// Under GitHub Actions the dry run's reasons quote a task's text, and the runner reads the
    /// older `##[NAME]` form anywhere in a line: a last failure `cannot run '##[error]x'` made
    /// it add an annotation. Such a line is written as text, in both previews.
    @Test func aDryRunReasonQuotingAWorkflowCommandRunsNoneUnderGitHubActions() async throws {
        let project = try Project("version: 1\ntasks:\n  b: {outputs: [o.txt], shell: ['##[error]x']}\n")
        #expect(try await FlowrunBinary.run(["run", "flow.yaml"], in: project.url).status == 1)
        for words in [["run", "--dry-run", "flow.yaml"], ["run", "--resume", "--dry-run", "flow.yaml"]] {
            let dry = try await FlowrunBinary.run(words, in: project.url, environment: ["GITHUB_ACTIONS": "true"])
            let lines = dry.stdout.split(separator: "\n").map(String.init)
            let reason = try #require(lines.firstIndex { $0.contains("would run: failed in run") && $0.contains("'##[error]x'") }, "\(dry.stdout)")
            let stop = lines[reason - 1]
            #expect(stop.hasPrefix("::stop-commands::flowrun-"), "\(dry.stdout)")
            #expect(lines[reason + 1] == "::\(stop.dropFirst("::stop-commands::".count))::", "\(dry.stdout)")
        }
    }

    func runs(_ project: Project) async throws -> [String] {
        let listed = try await FlowrunBinary.run(["runs", "--json", "flow.yaml"], in: project.url)
        let runs = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        return runs.compactMap { $0["id"] as? String }
    }

    @Test func dryRunSaysWhichTasksWouldRunAndWhy() async throws {
        let project = try Self.chainProject()
        var dry = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: project.url)
        #expect(dry.stdout.contains("would run: never ran"), "\(dry.stdout)")
        #expect(!FileManager.default.fileExists(atPath: project.url.appendingPathComponent(".flowrun").path), "a dry run writes nothing")
        _ = try await project.run()
        try project.write("src/d.txt", "changed\n")
        try project.remove("build/c.out")
        dry = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: project.url)
        let lines = dry.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains { $0.hasPrefix("d ") && $0.hasSuffix("would run: changed input src/d.txt") }, "\(dry.stdout)")
        #expect(lines.contains { $0.hasPrefix("c ") && $0.hasSuffix("would run: missing output build/c.out") }, "\(dry.stdout)")
        #expect(lines.contains("2 tasks up to date"), "\(dry.stdout)")
        try project.write("flow.yaml", Self.chain.replacingOccurrences(of: "cat build/b.out", with: "cp build/b.out"))
        dry = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: project.url)
        #expect(dry.stdout.contains("would run: changed command"), "\(dry.stdout)")
    }

    @Test func thePlainLogShowsUpToDateTasksAsOneLineAndCountsThem() async throws {
        let project = try Self.chainProject()
        _ = try await project.run()
        try project.write("src/d.txt", "changed\n")
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: project.url)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains("up to date") && !$0.hasPrefix("workflow") } == ["3 tasks up to date"], "\(result.stdout)")
        #expect(!lines.contains { $0.hasPrefix("[a]") }, "no line per up-to-date task")
        #expect(lines.last?.hasSuffix(": 1 succeeded, 3 up to date") == true, "\(result.stdout)")
    }

    @Test func junitMarksUpToDateTasksSkippedWithTheReason() async throws {
        let project = try Self.chainProject()
        _ = try await project.run()
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "--junit", "report.xml", "flow.yaml"], in: project.url)
        #expect(result.status == 0)
        let report = try project.read("report.xml")
        #expect(report.contains("skipped=\"4\""))
        #expect(report.contains("<skipped message=\"up-to-date\"/>"))
    }

    @Test func rerunningTheUpgradeDemoSkipsDownloadAndUnpack() async throws {
        let folder = try TemporaryFolder()
        let copy = folder.url.appendingPathComponent("workflows")
        try FileManager.default.copyItem(at: FlowrunBinary.repositoryRoot.appendingPathComponent("workflows"), to: copy)
        try? FileManager.default.removeItem(at: copy.appendingPathComponent(".flowrun"))
        try? FileManager.default.removeItem(at: copy.appendingPathComponent("out"))
        let first = try await FlowrunBinary.run(["run", "--events", "jsonl", "workflows/upgrade.yaml"], in: folder.url)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let second = try await FlowrunBinary.run(["run", "--events", "jsonl", "workflows/upgrade.yaml"], in: folder.url)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        let events = try EventStream(second.stdout)
        let upToDate = Set(events.named("task.skipped").filter { $0["reason"] as? String == "up-to-date" }.compactMap(\.task))
        #expect(upToDate == ["download", "unpack"])
        #expect(events.finals["install"] == "task.succeeded", "a shell task with neither field runs, as before")
    }

    @Test func badInputsAndOutputsAreReportedAtTheirPlace() async throws {
        let folder = try TemporaryFolder()
        try Data("version: 1\ntasks:\n  a:\n    inputs: src/a.txt\n    outputs: ['']\n    shell: 'true'\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("flow.yaml:4:13"), "\(result.stderr)")
        #expect(result.stderr.contains("'inputs' of task 'a'"), "\(result.stderr)")
        #expect(result.stderr.contains("flow.yaml:5:15"), "\(result.stderr)")
    }

    @Test func anUndefinedVariableInInputsIsReported() async throws {
        let folder = try TemporaryFolder()
        try Data("version: 1\ntasks:\n  a: {inputs: ['${NOPE}/x'], shell: 'true'}\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("NOPE"), "\(result.stderr)")
    }

    /// A single `.gz` is extracted with the `.gz`'s own (old) mtime, as gunzip gives it: a rerun
    /// still finds the file and the task that reads it up to date, and a new `.gz` given the
    /// same old mtime still reruns both (the check is by content, not by time).
    @Test func aSingleGzipKeepsItsOldTimeAndTheChecksStillHold() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              unpack: {decompress: {from: app.log.gz, to: out}}
              count: {needs: unpack, inputs: [out/app.log], outputs: [lines.txt], shell: 'wc -l < out/app.log > lines.txt'}

            """)
        try project.shell("printf 'a\\nb\\n' > app.log && gzip -n app.log && touch -d '2020-01-02 03:04:05' app.log.gz")
        #expect(try await project.run().ran == ["unpack", "count"])
        let second = try await project.run()
        #expect(second.ran.isEmpty && second.upToDate == ["unpack", "count"])
        try project.shell("printf 'a\\nb\\nc\\n' | gzip -n > app.log.gz && touch -d '2020-01-02 03:04:05' app.log.gz")
        #expect(try await project.run().ran == ["unpack", "count"])
        let lines = try String(contentsOf: project.url.appendingPathComponent("lines.txt"), encoding: .utf8)
        #expect(lines.trimmingCharacters(in: .whitespaces) == "3\n")
    }
}
