import Foundation
import Glibc
import Testing

/// `flowrun run --resume [RUN] FILE`, as a user of GitHub's "re-run failed jobs" or Nextflow's
/// `-resume` meets it: what succeeded and did not change is kept (`done-before`), the rest runs.
@Suite struct ResumeTests {
    /// a -> b -> c, and d beside b; b fails until `b.sh` says otherwise.
    static let workflow = """
        version: 1
        tasks:
          a: {shell: 'echo a'}
          b: {needs: a, shell: 'sh b.sh'}
          c: {needs: b, shell: 'echo c'}
          d: {needs: a, shell: 'echo d'}

        """

    final class Project: WorkflowFolder {
        /// `flowrun run --events jsonl arguments...`: its status, the tasks that started and
        /// the done-before skips, each with its run.
        func run(_ arguments: [String]) async throws -> (status: Int32, ran: Set<String>, doneBefore: [String: String], events: EventStream) {
            let result = try await FlowrunBinary.run(["run", "--events", "jsonl"] + arguments, in: url)
            let events = try EventStream(result.stdout)
            let ran = Set(events.named("task.started").compactMap(\.task))
            var doneBefore: [String: String] = [:]
            for event in events.named("task.skipped") where event["reason"] as? String == "done-before" {
                doneBefore[event.task ?? ""] = event["run"] as? String ?? "(no run)"
            }
            return (result.status, ran, doneBefore, events)
        }

        /// The recorded runs' ids, newest first.
        func runIDs() async throws -> [String] {
            let listed = try await FlowrunBinary.run(["runs", "--json", "flow.yaml"], in: url)
            let runs = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            return runs.compactMap { $0["id"] as? String ?? $0["run"] as? String }
        }
    }

    @Test func resumeAfterAFailureRunsOnlyTheFailedTaskAndItsDependents() async throws {
        let project = try Project(Self.workflow, files: ["b.sh": "echo broken; exit 1\n"])
        let first = try await project.run(["flow.yaml"])
        #expect(first.status == 1)
        #expect(first.ran == ["a", "b", "d"])
        let failedRun = try #require(try await project.runIDs().first)
        try project.write("b.sh", "echo fixed\n")

        let resumed = try await project.run(["--resume", "flow.yaml", "--junit", "report.xml"])
        #expect(resumed.status == 0)
        #expect(resumed.ran == ["b", "c"])
        #expect(resumed.doneBefore == ["a": failedRun, "d": failedRun])
        let report = try String(contentsOf: project.url.appendingPathComponent("report.xml"), encoding: .utf8)
        #expect(report.contains("done-before (run \(failedRun))"))
        let finished = try #require(resumed.events.named("workflow.finished").first)
        let counts = try #require(finished["counts"] as? [String: Int])
        #expect(counts["done_before"] == 2)
        #expect(counts["succeeded"] == 2)

        // Resuming the run that succeeded runs nothing; the plain log says so in one line.
        let plain = try await FlowrunBinary.run(["run", "--resume", "--events", "plain", "flow.yaml"], in: project.url)
        #expect(plain.status == 0)
        let lastRun = try #require(try await project.runIDs().dropFirst().first)
        #expect(plain.stdout.contains("\n4 tasks done before (run \(lastRun))\n"))
        #expect(!plain.stdout.contains("[a]"))
        #expect(plain.stdout.contains(": 4 done before\n"))
    }

    @Test func resumeRunFileResumesThatRun() async throws {
        let project = try Project(Self.workflow, files: ["b.sh": "exit 1\n"])
        #expect(try await project.run(["flow.yaml"]).status == 1)
        let failedRun = try #require(try await project.runIDs().first)
        try project.write("b.sh", "exit 0\n")
        #expect(try await project.run(["flow.yaml", "a"]).status == 0)  // a later run, of a alone

        let resumed = try await project.run(["--resume", failedRun, "flow.yaml"])
        #expect(resumed.status == 0)
        #expect(resumed.ran == ["b", "c"])
        #expect(resumed.doneBefore == ["a": failedRun, "d": failedRun])
        #expect(try await project.run(["--resume-from", failedRun, "flow.yaml"]).ran == ["b", "c"])
    }

    /// `--resume RUN FILE` takes RUN as `--resume-from` and `logs` do: `last` and a unique
    /// start of an id were read as the FILE ("last: error: cannot read the file"); a run of
    /// another workflow file was "no run ... recorded", as if it did not exist.
    @Test func resumeTakesLastAStartOfAnIdAndRefusesAnotherWorkflowsRun() async throws {
        let project = try Project(Self.workflow, files: ["b.sh": "exit 1\n"])
        try project.write("other.yaml", "version: 1\ntasks:\n  x: {shell: 'true'}\n")
        #expect(try await project.run(["flow.yaml"]).status == 1)
        let failedRun = try #require(try await project.runIDs().first)
        #expect(try await FlowrunBinary.run(["run", "other.yaml"], in: project.url).status == 0)
        try project.write("b.sh", "exit 0\n")

        // The start of the id down to its hundredths of a second: each run here takes longer.
        let start = String(failedRun.prefix(18))
        let byStart = try await project.run(["--resume", start, "flow.yaml"])
        #expect(byStart.status == 0, "--resume \(start)")
        #expect(byStart.ran == ["b", "c"])
        #expect(byStart.doneBefore == ["a": failedRun, "d": failedRun])
        let resumedRun = try #require(try await project.runIDs().first)
        let byLast = try await project.run(["--resume", "last", "flow.yaml"])
        #expect(byLast.status == 0)
        #expect(byLast.ran.isEmpty)
        #expect(byLast.doneBefore == ["a": resumedRun, "b": resumedRun, "c": resumedRun, "d": resumedRun], "the last run of flow.yaml")

        let listed = try await FlowrunBinary.run(["runs", "other.yaml"], in: project.url).stdout
        let otherRun = try #require(listed.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))
        for arguments in [["--resume", otherRun, "flow.yaml"], ["--resume-from", otherRun, "flow.yaml"]] {
            let refused = try await FlowrunBinary.run(["run"] + arguments, in: project.url)
            #expect(refused.status == 2, "\(arguments)")
            #expect(refused.stderr.contains("--resume: run \(otherRun) is a run of \(project.url.path)/other.yaml, not of "), "\(refused.stderr)")
            #expect(refused.stdout == "")
        }
    }

    /// A workflow that declares no files: the second run reads its tasks' keys from the compiled
    /// plan, where the first kept them, rather than hashing; a resume of it keeps every task, so
    /// they are the keys the resume takes afresh. An edited task's key is not taken from there.
    @Test func keysReadFromTheCompiledPlanAreTheKeysAResumeTakes() async throws {
        let project = try Project(Self.workflow, files: ["b.sh": "exit 0\n"])
        #expect(try await project.run(["flow.yaml"]).ran == ["a", "b", "c", "d"])
        #expect(try await project.run(["flow.yaml"]).ran == ["a", "b", "c", "d"])
        let second = try #require(try await project.runIDs().first)
        let resumed = try await project.run(["--resume", "flow.yaml"])
        #expect(resumed.ran.isEmpty)
        #expect(resumed.doneBefore == ["a": second, "b": second, "c": second, "d": second])

        try project.write("flow.yaml", Self.workflow.replacingOccurrences(of: "'sh b.sh'", with: "'sh ./b.sh'"))
        #expect(try await project.run(["flow.yaml"]).ran == ["a", "b", "c", "d"])
        #expect(try await project.run(["flow.yaml"]).ran == ["a", "b", "c", "d"])
        let edited = try #require(try await project.runIDs().first)
        let resumedEdited = try await project.run(["--resume", "flow.yaml"])
        #expect(resumedEdited.ran.isEmpty)
        #expect(resumedEdited.doneBefore == ["a": edited, "b": edited, "c": edited, "d": edited])
    }

    /// A need rebuilt by a run in between (its input changed) is up to date now, so it does not
    /// run; but what its dependent was made from in the run resumed is gone: the dependent runs,
    /// though it declares no files itself. Resuming the run in between keeps it.
    @Test func aTaskWhoseNeedWasRebuiltByARunInBetweenRunsAgain() async throws {
        let workflow = """
            version: 1
            tasks:
              gen: {inputs: [src.txt], outputs: [gen.txt], shell: 'cp src.txt gen.txt'}
              use: {needs: gen, shell: 'cat gen.txt'}
              other: {shell: 'echo other'}

            """
        let project = try Project(workflow, files: ["src.txt": "one\n"])
        #expect(try await project.run(["flow.yaml"]).status == 0)
        let firstRun = try #require(try await project.runIDs().first)
        try project.write("src.txt", "two\n")
        #expect(try await project.run(["flow.yaml"]).ran == ["gen", "use", "other"])
        let runInBetween = try #require(try await project.runIDs().first)

        let resumedFirst = try await project.run(["--resume", firstRun, "flow.yaml"])
        #expect(resumedFirst.status == 0)
        #expect(resumedFirst.ran == ["use"])
        #expect(resumedFirst.doneBefore == ["other": firstRun])

        let resumedBetween = try await project.run(["--resume", runInBetween, "flow.yaml"])
        #expect(resumedBetween.ran.isEmpty)
        #expect(resumedBetween.doneBefore == ["use": runInBetween, "other": runInBetween])
    }

    @Test func aChangedTaskAndItsDependentsRunAgainTheRestIsDoneBefore() async throws {
        let project = try Project(Self.workflow, files: ["b.sh": "exit 0\n"])
        #expect(try await project.run(["flow.yaml"]).status == 0)

        // d's command changed: d alone runs.
        try project.write("flow.yaml", Self.workflow.replacingOccurrences(of: "'echo d'", with: "'echo dee'"))
        let changedLeaf = try await project.run(["--resume", "flow.yaml"])
        #expect(changedLeaf.ran == ["d"])
        #expect(Set(changedLeaf.doneBefore.keys) == ["a", "b", "c"])

        // b's command changed: b and c (which needs it) run; a and d are kept.
        try project.write(
            "flow.yaml", Self.workflow.replacingOccurrences(of: "'echo d'", with: "'echo dee'").replacingOccurrences(of: "'sh b.sh'", with: "'sh ./b.sh'"))
        let changedNeed = try await project.run(["--resume", "flow.yaml"])
        #expect(changedNeed.ran == ["b", "c"])
        #expect(Set(changedNeed.doneBefore.keys) == ["a", "d"])

        // A renamed task is a new task: it runs.
        try project.write(
            "flow.yaml",
            Self.workflow.replacingOccurrences(of: "'echo d'", with: "'echo dee'").replacingOccurrences(of: "'sh b.sh'", with: "'sh ./b.sh'")
                .replacingOccurrences(of: "  d: {", with: "  d2: {"))
        let renamed = try await project.run(["--resume", "flow.yaml"])
        #expect(renamed.ran == ["d2"])
        #expect(Set(renamed.doneBefore.keys) == ["a", "b", "c"])
    }

    @Test func aTaskWhoseInputChangedRunsAgain() async throws {
        let workflow = """
            version: 1
            tasks:
              count: {inputs: [words.txt], shell: 'wc -w < words.txt'}
              report: {needs: count, shell: 'echo counted'}
              other: {shell: 'echo other'}

            """
        let project = try Project(workflow, files: ["words.txt": "one two\n"])
        #expect(try await project.run(["flow.yaml"]).status == 0)
        try project.write("words.txt", "one two three\n")
        let resumed = try await project.run(["--resume", "flow.yaml"])
        #expect(resumed.status == 0)
        #expect(resumed.ran == ["count", "report"])
        #expect(Set(resumed.doneBefore.keys) == ["other"])

        // A declared output deleted since is made again, as Nextflow's -resume does.
        try project.write("flow.yaml", workflow.replacingOccurrences(of: "'echo other'", with: "'echo other > other.txt', outputs: [other.txt]"))
        #expect(try await project.run(["flow.yaml"]).ran.contains("other"))
        try FileManager.default.removeItem(at: project.url.appendingPathComponent("other.txt"))
        let outputGone = try await project.run(["--resume", "flow.yaml"])
        #expect(outputGone.ran == ["other"])
        #expect(Set(outputGone.doneBefore.keys).union(outputGone.events.named("task.skipped").compactMap(\.task)) == ["count", "report"])
    }

    /// As the up-to-date check: a task is kept only with its declared outputs as it left them.
    @Test func aTaskWhoseOutputWasEditedSinceRunsAgain() async throws {
        let workflow = """
            version: 1
            tasks:
              make: {outputs: [made.txt], shell: 'echo made > made.txt'}
              check: {needs: make, shell: 'sh check.sh'}
              other: {shell: 'echo other'}

            """
        let project = try Project(workflow, files: ["check.sh": "exit 1\n"])
        #expect(try await project.run(["flow.yaml"]).status == 1)
        try project.write("made.txt", "edited by hand\n")
        try project.write("check.sh", "grep -q made made.txt\n")
        let resumed = try await project.run(["--resume", "flow.yaml"])
        #expect(resumed.status == 0)
        #expect(resumed.ran == ["make", "check"])
        #expect(Set(resumed.doneBefore.keys) == ["other"])
        #expect(try project.read("made.txt") == "made\n")
    }

    /// As the up-to-date check: a task whose input changed while it ran is not kept.
    @Test func aTaskWhoseInputChangedWhileItRanRunsAgain() async throws {
        let workflow = """
            version: 1
            tasks:
              gen: {inputs: [in.txt], outputs: [out.txt], shell: 'cat in.txt > out.txt; echo more >> in.txt'}
              check: {needs: gen, shell: 'sh check.sh'}

            """
        let project = try Project(workflow, files: ["in.txt": "one\n", "check.sh": "exit 1\n"])
        #expect(try await project.run(["flow.yaml"]).status == 1)
        try project.write("check.sh", "exit 0\n")
        let resumed = try await project.run(["--resume", "flow.yaml"])
        #expect(resumed.status == 0)
        #expect(resumed.ran == ["gen", "check"])
    }

    /// a, then long (which waits for a file) beside quick.
    static let longWorkflow = """
        version: 1
        tasks:
          a: {shell: 'echo a'}
          quick: {needs: a, shell: 'echo quick'}
          long: {needs: a, shell: 'echo ready; until [ -e release ]; do sleep 0.05; done'}

        """

    /// `run --only check` (what an exported job runs), then `--resume` of that run: check
    /// succeeded there and nothing changed, so it is done before. Its key was taken without the
    /// need `--only` took as done, and the resume said "changed since run" and ran it again.
    @Test func aTaskRunWithOnlyIsDoneBeforeWhenThatRunIsResumed() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              make: {shell: 'echo made > made.txt', outputs: [made.txt]}
              check: {needs: make, shell: 'echo checked'}

            """)
        #expect(try await project.run(["flow.yaml"]).status == 0)
        #expect(try await project.run(["--only", "check", "flow.yaml"]).ran == ["check"])
        let onlyRun = try #require(try await project.runIDs().first)
        let resumed = try await project.run(["--resume", "flow.yaml"])
        #expect(resumed.status == 0)
        #expect(resumed.ran.isEmpty)
        #expect(resumed.doneBefore == ["check": onlyRun])
    }

    @Test func resumeAfterCtrlCRunsWhatWasCancelled() async throws {
        let project = try Project(Self.longWorkflow)
        let live = try LiveRun(["run", "--events", "jsonl", "flow.yaml"], in: project.url)
        #expect(await live.waitFor("\"line\":\"ready\""))
        #expect(await live.waitFor("\"event\":\"task.succeeded\",\"task\":\"quick\""))
        live.send(SIGINT)
        #expect(await live.wait() == 130)
        let cancelledRun = try #require(try await project.runIDs().first)
        try project.write("release", "")

        let resumed = try await project.run(["--resume", "flow.yaml"])
        #expect(resumed.status == 0)
        #expect(resumed.ran == ["long"])
        #expect(resumed.doneBefore == ["a": cancelledRun, "quick": cancelledRun])
    }

    @Test func resumeAfterFlowrunWasKilledRunsWhatHadNotEnded() async throws {
        let project = try Project(Self.longWorkflow)
        let live = try LiveRun(["run", "--events", "jsonl", "flow.yaml"], in: project.url)
        #expect(await live.waitFor("\"line\":\"ready\""))
        #expect(await live.waitFor("\"event\":\"task.succeeded\",\"task\":\"quick\""))
        // The record gets each event right after the console: wait for it there too (a hang guard).
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline, !(try recordText(project).contains("\"line\":\"ready\"")) {
            try await Task.sleep(for: .milliseconds(10))
        }
        live.send(SIGKILL)
        _ = await live.wait()
        #expect(live.process.terminationReason == .uncaughtSignal)
        try project.write("release", "")  // ends the task's loop, should the watchdog be slow
        let killedRun = try #require(try await project.runIDs().first)

        let resumed = try await project.run(["--resume", "flow.yaml"])
        #expect(resumed.status == 0)
        #expect(resumed.ran == ["long"])
        #expect(resumed.doneBefore == ["a": killedRun, "quick": killedRun])
    }

    func recordText(_ project: Project) throws -> String {
        let runs = project.url.appendingPathComponent(".flowrun/runs")
        guard let workflow = try? FileManager.default.contentsOfDirectory(atPath: runs.path).first else { return "" }
        let folder = runs.appendingPathComponent(workflow)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).map {
            try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)
        }.joined()
    }

    /// A record has no checksum: a flipped byte in a line was used as it was, without a word.
    /// Now a line that cannot be read is named, and the damaged record makes no task done
    /// before (a flip may have made any line say what the run did not do).
    @Test func aDamagedRecordIsNamedWithItsLineAndKeepsNoTaskAsDone() async throws {
        let project = try Project(Self.workflow, files: ["b.sh": "exit 1\n"])
        #expect(try await project.run(["flow.yaml"]).status == 1)
        let runs = project.url.appendingPathComponent(".flowrun/runs")
        let workflow = try #require(try FileManager.default.contentsOfDirectory(atPath: runs.path).first)
        let folder = runs.appendingPathComponent(workflow)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
        let record = folder.appendingPathComponent(name)
        var lines = try String(contentsOf: record, encoding: .utf8).components(separatedBy: "\n")
        let failed = try #require(lines.firstIndex { $0.contains("\"event\":\"task.failed\"") })
        lines[failed] = lines[failed].replacingOccurrences(of: "\"event\":", with: "\"evenT\":")
        try Data(lines.joined(separator: "\n").utf8).write(to: record)
        try project.write("b.sh", "exit 0\n")

        let resumed = try await FlowrunBinary.run(["run", "--events", "jsonl", "--resume", "flow.yaml"], in: project.url)
        #expect(resumed.status == 0)
        #expect(
            resumed.stderr.contains("--resume: the run record \(record.path) is damaged at line \(failed + 1): no task is taken from it as done"),
            "\(resumed.stderr)")
        let started = Set(try EventStream(resumed.stdout).named("task.started").compactMap(\.task))
        #expect(started == ["a", "b", "c", "d"])
    }

    /// A start of an id that names two runs is refused with the `--resume:` every other
    /// --resume error starts with; it had none.
    @Test func aStartOfAnIdThatNamesTwoRunsIsAResumeError() async throws {
        let project = try Project(Self.workflow, files: ["b.sh": "exit 0\n"])
        #expect(try await project.run(["flow.yaml"]).status == 0)
        #expect(try await project.run(["flow.yaml"]).status == 0)
        let ids = try await project.runIDs()
        try #require(ids.count == 2)
        var shared = String(zip(ids[0], ids[1]).prefix { $0 == $1 }.map(\.0))
        while shared.hasSuffix("-") { shared.removeLast() }
        let refused = try await FlowrunBinary.run(["run", "--resume", shared, "flow.yaml"], in: project.url)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--resume: '\(shared)' names 2 runs ("), "\(refused.stderr)")
        #expect(refused.stdout == "")
    }

    @Test func resumeWithNoRecordOrAnUnknownRunExits2AndSaysSo() async throws {
        let project = try Project(Self.workflow, files: ["b.sh": "exit 0\n"])
        let none = try await FlowrunBinary.run(["run", "--resume", "flow.yaml"], in: project.url)
        #expect(none.status == 2)
        #expect(none.stderr.contains("nothing to resume: no run recorded in "))
        #expect(none.stdout == "")

        #expect(try await project.run(["flow.yaml"]).status == 0)
        let unknown = try await FlowrunBinary.run(["run", "--resume", "20200101-000000-000", "flow.yaml"], in: project.url)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no run 20200101-000000-000 recorded in "))

        // The last run is a newer flowrun's: refused, rather than an older run resumed.
        let runs = project.url.appendingPathComponent(".flowrun/runs")
        let workflow = try #require(try FileManager.default.contentsOfDirectory(atPath: runs.path).first)
        let newer = runs.appendingPathComponent(workflow).appendingPathComponent("29991231-235959-999.jsonl")
        try Data("{\"format\":\"flowrun-run-record\",\"version\":99,\"run\":\"29991231-235959-999\"}\n".utf8).write(to: newer)
        let refused = try await FlowrunBinary.run(["run", "--resume", "flow.yaml"], in: project.url)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("written by a newer flowrun (record format version 99"))
        #expect(refused.stdout == "")
    }
}
