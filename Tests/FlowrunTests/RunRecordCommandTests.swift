import Foundation
import Glibc
import Testing

/// Run records as a make, go-task or GitHub Actions user meets them: every run is remembered in
/// `.flowrun/`, `flowrun runs` lists them, `flowrun logs` shows one again.
@Suite struct RunRecordCommandTests {
    let threeTasks = """
        version: 1
        tasks:
          build: {shell: "echo compiling; echo warning >&2"}
          test: {needs: build, shell: "echo testing; exit 3"}
          deploy: {needs: test, shell: "echo deploying"}
        """

    func folder(_ workflow: String) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try Data(workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return folder
    }

    func flowrun(_ arguments: [String], in folder: TemporaryFolder) async throws -> FlowrunBinary.Result {
        try await FlowrunBinary.run(arguments, in: folder.url)
    }

    func runs(in folder: TemporaryFolder) async throws -> [[String: Any]] {
        let listed = try await flowrun(["runs", "--json", "flow.yaml"], in: folder)
        #expect(listed.status == 0, "\(listed.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
    }

    @Test func logsShowsAPastRunExactlyAsTheConsoleShowedIt() async throws {
        let folder = try folder(threeTasks)
        let run = try await flowrun(["run", "--events", "plain", "flow.yaml"], in: folder)
        #expect(run.status == 1)
        let logs = try await flowrun(["logs"], in: folder)
        #expect(logs.status == 0, "\(logs.stderr)")
        #expect(logs.stdout == run.stdout)
        #expect(logs.stdout.contains("[test] failed in "))
        let jsonl = try await flowrun(["logs", "--events", "jsonl"], in: folder)
        let events = try EventStream(jsonl.stdout)
        #expect(events.finals == ["build": "task.succeeded", "test": "task.failed", "deploy": "task.skipped"])
        #expect(events.named("workflow.finished").first?["status"] as? String == "failed")
    }

    /// As git finds its repository from a subfolder: `flowrun` run in `src/` ran and recorded
    /// the flowrun.yaml above, so `flowrun runs` and `flowrun logs` there show that run.
    @Test func runsAndLogsInASubfolderShowTheRunsOfTheFlowrunYamlAbove() async throws {
        let folder = try TemporaryFolder()
        try Data("version: 1\ntasks:\n  build: {shell: echo compiling}\n".utf8).write(to: folder.url.appendingPathComponent("flowrun.yaml"))
        let src = folder.url.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: src, withIntermediateDirectories: true)
        let run = try await FlowrunBinary.run(["--events", "plain"], in: src)
        #expect(run.status == 0, "\(run.stderr)")
        let runs = try await FlowrunBinary.run(["runs"], in: src)
        #expect(runs.status == 0, "\(runs.stderr)")
        #expect(runs.stdout.contains("succeeded"), "\(runs.stdout)")
        let logs = try await FlowrunBinary.run(["logs"], in: src)
        #expect(logs.status == 0, "\(logs.stderr)")
        #expect(logs.stdout == run.stdout)
    }

    @Test func logsShowsAnAllowedFailureAsAllowedAsTheRunDid() async throws {
        let folder = try folder(
            """
            version: 1
            tasks:
              lint: {continue_on_error: true, shell: "echo style; exit 3"}
              build: {shell: "echo compiling"}
            """)
        let run = try await flowrun(["run", "--events", "plain", "flow.yaml"], in: folder)
        #expect(run.status == 0)
        let logs = try await flowrun(["logs"], in: folder)
        #expect(logs.status == 0, "\(logs.stderr)")
        #expect(logs.stdout == run.stdout)
        #expect(logs.stdout.contains("[lint] allowed failure in "))
        #expect(logs.stdout.contains("1 succeeded, 1 allowed failure"))
        let jsonl = try await flowrun(["logs", "--events", "jsonl"], in: folder)
        let events = try EventStream(jsonl.stdout)
        #expect(events.named("task.failed").first?["allowed"] as? Bool == true)
    }

    @Test func runsListsEachRunNewestFirstWithItsResultAndCounts() async throws {
        let folder = try folder(threeTasks)
        #expect(try await flowrun(["run", "flow.yaml"], in: folder).status == 1)
        #expect(try await flowrun(["run", "flow.yaml", "build"], in: folder).status == 0)
        let listed = try await runs(in: folder)
        #expect(listed.count == 2)
        #expect(listed.map { $0["result"] as? String } == ["succeeded", "failed"])
        let failed = try #require(listed.last?["counts"] as? [String: Int])
        #expect(failed == ["succeeded": 1, "failed": 1, "cancelled": 0, "skipped": 1, "allowed": 0, "up_to_date": 0, "done_before": 0])
        #expect((listed[0]["id"] as? String ?? "") > (listed[1]["id"] as? String ?? ""))
        #expect(listed[0]["file"] as? String == folder.url.appendingPathComponent("flow.yaml").standardizedFileURL.path)
        #expect((listed[0]["digest"] as? String)?.hasPrefix("sha256:") == true)
        #expect(listed[0]["duration_ms"] is Int && listed[0]["started"] is String)

        let table = try await flowrun(["runs", "flow.yaml"], in: folder)
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("ID") && lines[0].contains("STARTED") && lines[0].contains("DURATION") && lines[0].contains("RESULT"))
        #expect(lines[1].hasPrefix(listed[0]["id"] as? String ?? "?") && lines[1].contains("succeeded"))
        #expect(lines[2].contains("failed"))
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(".flowrun/.gitignore").path))
    }

    /// As issue 14 says and the run's last line does: FAILED leaves out allowed failures
    /// (continue_on_error); `--json` counts are the events', `failed` every task.failed with
    /// `allowed` a part of it.
    @Test func runsLeavesAllowedFailuresOutOfFailedAsTheLastLineDoes() async throws {
        let folder = try folder(
            """
            version: 1
            tasks:
              lint: {continue_on_error: true, shell: 'exit 1'}
              test: {shell: 'exit 2'}
              build: {shell: 'true'}
            """)
        let first = try await flowrun(["run", "--events", "plain", "--keep-going", "flow.yaml"], in: folder)
        #expect(first.status == 1)
        #expect(first.stdout.hasSuffix(": 1 succeeded, 1 failed, 1 allowed failure\n"), "\(first.stdout)")
        try Data("version: 1\ntasks:\n  lint: {continue_on_error: true, shell: 'exit 1'}\n  build: {shell: 'true'}\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))
        #expect(try await flowrun(["run", "flow.yaml"], in: folder).status == 0)
        let listed = try await runs(in: folder)
        #expect(listed.map { $0["result"] as? String } == ["succeeded", "failed"])
        #expect(listed.map { ($0["counts"] as? [String: Int])?["failed"] } == [1, 2])
        #expect(listed.map { ($0["counts"] as? [String: Int])?["allowed"] } == [1, 1])
        for (run, failed) in zip(listed.compactMap { $0["id"] as? String }, [1, 2]) {
            let events = try EventStream(try await flowrun(["logs", run, "--events", "jsonl"], in: folder).stdout)
            #expect(events.named("task.failed").count == failed)
            #expect(events.named("task.failed").filter { $0["allowed"] as? Bool == true }.count == 1)
        }
        let table = try await flowrun(["runs", "flow.yaml"], in: folder)
        let columns = table.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(columns.count == 3)
        let failed = try #require(columns.first?.firstIndex(of: "FAILED"))
        #expect(columns.dropFirst().map { $0[failed] } == ["0", "1"], "\(table.stdout)")
        // The allowed failure is not lost from the table: its own column, as the last line
        // has its own count.
        let allowed = try #require(columns.first?.firstIndex(of: "ALLOWED"), "\(table.stdout)")
        #expect(columns.dropFirst().map { $0[allowed] } == ["1", "1"], "\(table.stdout)")
    }

    /// With no record in the current folder, `runs` (as `logs` and `report`) says to name the
    /// workflow with `-f FILE`: `runs` takes that form too, beside its FILE argument.
    @Test func runsTakesTheDashFFileItsHintNames() async throws {
        let folder = try TemporaryFolder()
        let project = folder.url.appendingPathComponent("proj")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        try Data("version: 1\ntasks:\n  build: {shell: echo compiling}\n".utf8).write(to: project.appendingPathComponent("flow.yaml"))
        #expect(try await flowrun(["run", "proj/flow.yaml"], in: folder).status == 0)
        let none = try await flowrun(["runs"], in: folder)
        #expect(none.stdout.contains("-f FILE"), "\(none.stdout)")
        let named = try await flowrun(["runs", "-f", "proj/flow.yaml"], in: folder)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.split(separator: "\n").count == 2 && named.stdout.contains("succeeded"), "\(named.stdout)")
        let json = try await flowrun(["runs", "--file", "proj/flow.yaml", "--json"], in: folder)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.contains("\"succeeded\""), "\(json.stdout)")
        let both = try await flowrun(["runs", "-f", "proj/flow.yaml", "proj/flow.yaml"], in: folder)
        #expect(both.status == 2, "\(both.stdout)")
    }

    @Test func logsWithATaskPrintsThatTasksOutputOnly() async throws {
        let folder = try folder(threeTasks)
        #expect(try await flowrun(["run", "flow.yaml"], in: folder).status == 1)
        let run = try #require(try await runs(in: folder).first?["id"] as? String)
        let last = try await flowrun(["logs", "build"], in: folder)
        #expect(last.stdout == "compiling\nwarning\n")
        let named = try await flowrun(["logs", run, "test"], in: folder)
        #expect(named.stdout == "testing\n")
        let unknown = try await flowrun(["logs", run, "tset"], in: folder)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no task 'tset'"))
    }

    @Test func noRecordDryRunAndValidateLeaveNoRecord() async throws {
        let folder = try folder(threeTasks)
        #expect(try await flowrun(["run", "--no-record", "flow.yaml", "build"], in: folder).status == 0)
        #expect(try await flowrun(["run", "--dry-run", "flow.yaml"], in: folder).status == 0)
        #expect(try await flowrun(["validate", "flow.yaml"], in: folder).status == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(".flowrun").path))
        let none = try await flowrun(["logs"], in: folder)
        #expect(none.status == 2)
        #expect(none.stderr.contains("no run recorded"))
        #expect(none.stderr.contains("-f FILE"), "a workflow in another folder keeps its records there")
    }

    @Test func theStateFolderCanBeElsewhere() async throws {
        let folder = try folder(threeTasks)
        let state = try TemporaryFolder()
        let environment = ["FLOWRUN_STATE_DIR": state.url.path]
        #expect(try await FlowrunBinary.run(["run", "flow.yaml", "build"], in: folder.url, environment: environment).status == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(".flowrun").path))
        let logs = try await FlowrunBinary.run(["logs", "build"], in: folder.url, environment: environment)
        #expect(logs.stdout == "compiling\nwarning\n")
    }

    @Test func recordsPastTheKeptCountArePruned() async throws {
        let folder = try folder(threeTasks)
        for _ in 0..<3 { #expect(try await flowrun(["run", "--keep-runs", "2", "flow.yaml", "build"], in: folder).status == 0) }
        #expect(try await runs(in: folder).count == 2)
    }

    @Test func aTasksOutputPastTheCapIsCutWithAMarker() async throws {
        let folder = try folder("version: 1\ntasks:\n  chatty: {shell: 'for i in $(seq 1 200); do echo line-$i; done'}\n")
        let run = try await flowrun(["run", "--events", "plain", "--record-output-cap", "1K", "flow.yaml"], in: folder)
        #expect(run.stdout.contains("line-200"))  // the console shows everything
        let logs = try await flowrun(["logs", "chatty"], in: folder)
        let lines = logs.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "line-1")
        #expect(lines.last?.contains("output cut here") == true)
        #expect(lines.last?.contains("--record-output-cap") == true)
        #expect(!lines.contains("line-200"))
        #expect(logs.stdout.utf8.count < 1300)
    }

    @Test func aRunKilledWithSigkillLeavesARecordReadableUpToItsLastEvent() async throws {
        let seconds = UniqueSleep.seconds()
        let folder = try folder("version: 1\ntasks:\n  first: {shell: 'echo done'}\n  long: {needs: first, shell: 'echo ready; sleep \(seconds)'}\n")
        let live = try LiveRun(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(await live.waitFor("\"line\":\"ready\""))
        // The record gets each event right after the console: wait for it there too (a hang guard).
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline, !(try recordText(folder).contains("ready")) { try await Task.sleep(for: .milliseconds(10)) }
        live.send(SIGKILL)
        _ = await live.wait()
        #expect(live.process.terminationReason == .uncaughtSignal)
        #expect(await SignalTests.noneLeft(matching: "sleep \(seconds)"))
        let listed = try await runs(in: folder)
        #expect(listed.first?["result"] as? String == "interrupted")
        #expect(
            listed.first?["counts"] as? [String: Int] == [
                "succeeded": 1, "failed": 0, "cancelled": 0, "skipped": 0, "allowed": 0, "up_to_date": 0, "done_before": 0,
            ])
        let logs = try await flowrun(["logs"], in: folder)
        #expect(logs.status == 0)
        #expect(logs.stdout.contains("[first] succeeded in "))
        #expect(logs.stdout.contains("[long] | ready\n"))
        #expect(logs.stdout.hasSuffix("was interrupted: its record ends here\n"))
        let table = try await flowrun(["runs", "flow.yaml"], in: folder)
        #expect(table.stdout.contains("interrupted"))
        // Its end was not seen: the duration is at least the time of its last event, said so.
        let row = table.stdout.split(separator: "\n").last { $0.contains("interrupted") } ?? ""
        #expect(row.split(separator: " ").contains { $0.hasPrefix(">") && $0.hasSuffix("s") }, "\(table.stdout)")
    }

    func recordText(_ folder: TemporaryFolder) throws -> String {
        let runs = folder.url.appendingPathComponent(".flowrun/runs")
        guard let workflow = try? FileManager.default.contentsOfDirectory(atPath: runs.path).first else { return "" }
        let records = try FileManager.default.contentsOfDirectory(atPath: runs.appendingPathComponent(workflow).path)
        return try records.map { try String(contentsOf: runs.appendingPathComponent(workflow).appendingPathComponent($0), encoding: .utf8) }.joined()
    }

    @Test func aSecondRunOnTheSameFolderWaitsForTheFirstOrRefusesWithNoWait() async throws {
        let folder = try folder("version: 1\ntasks:\n  hold: {shell: 'echo holding; until [ -e release ]; do sleep 0.05; done'}\n")
        let first = try LiveRun(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(await first.waitFor("\"line\":\"holding\""))
        let refused = try await flowrun(["run", "--no-wait", "flow.yaml"], in: folder)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("another flowrun (pid \(first.process.processIdentifier)) is using the state folder"))
        #expect(refused.stdout == "")
        let second = try LiveRun(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline, !second.stderr.contains("waiting for another flowrun") { try await Task.sleep(for: .milliseconds(10)) }
        #expect(second.stderr.contains("waiting for another flowrun (pid \(first.process.processIdentifier))"))
        #expect(second.stdout == "")  // it has not started
        try Data().write(to: folder.url.appendingPathComponent("release"))
        #expect(await first.wait() == 0)
        #expect(await second.wait() == 0)
        #expect(try await runs(in: folder).count == 2)
    }

    /// A task that runs flowrun on a workflow of the same folder: the outer run holds the state
    /// folder and waits for its task, so the inner one must not wait for the outer one.
    @Test func aFlowrunStartedByATaskOfTheRunHoldingTheFolderRefusesAtOnce() async throws {
        let binary = FlowrunBinary.url.path
        let folder = try folder(
            """
            version: 1
            tasks:
              outer: {shell: "timeout 60 '\(binary)' run inner.yaml || echo inner exited $?"}

            """)
        try Data("version: 1\ntasks:\n  x: {shell: 'echo inner ran'}\n".utf8).write(to: folder.url.appendingPathComponent("inner.yaml"))
        let outer = try await flowrun(["run", "--events", "plain", "flow.yaml"], in: folder)
        #expect(outer.stdout.contains("inner exited 2"), "\(outer.stdout)")  // not 124: it did not wait
        #expect(outer.stdout.contains("is held by the flowrun (pid "), "\(outer.stdout)")
        #expect(outer.stdout.contains("that started this one"), "\(outer.stdout)")
        #expect(!outer.stdout.contains("inner ran"))
    }

    @Test func foreignAndNewerRecordsAreReportedNotFatal() async throws {
        let folder = try folder(threeTasks)
        #expect(try await flowrun(["run", "flow.yaml", "build"], in: folder).status == 0)
        let runs = folder.url.appendingPathComponent(".flowrun/runs")
        let workflow = try #require(try FileManager.default.contentsOfDirectory(atPath: runs.path).first)
        try Data("not a record\u{0}\u{1}".utf8).write(to: runs.appendingPathComponent(workflow).appendingPathComponent("junk.jsonl"))
        let listed = try await flowrun(["runs", "flow.yaml"], in: folder)
        #expect(listed.status == 0)
        #expect(listed.stderr.contains("junk.jsonl is not a flowrun run record; ignored"))
        #expect(listed.stdout.contains("succeeded"))

        let newer = runs.appendingPathComponent(workflow).appendingPathComponent("29991231-235959-999.jsonl")
        try Data("{\"format\":\"flowrun-run-record\",\"version\":99,\"run\":\"29991231-235959-999\"}\n".utf8).write(to: newer)
        let logs = try await flowrun(["logs"], in: folder)
        #expect(logs.status == 2)
        #expect(logs.stderr.contains("written by a newer flowrun (record format version 99"))
        #expect(try await flowrun(["runs", "flow.yaml"], in: folder).status == 0)
    }

    /// A full disk (here: a file size limit) stops the record, not the run.
    @Test func aRecordThatCannotBeWrittenWarnsOnceAndTheRunGoesOn() async throws {
        let folder = try folder("version: 1\ntasks:\n  chatty: {shell: 'for i in $(seq 1 500); do echo line-$i; done'}\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import os, resource, signal, sys
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
            os.execv(sys.argv[1], sys.argv[1:])
            """, FlowrunBinary.url.path, "run", "--events", "plain", "flow.yaml",
        ]
        process.currentDirectoryURL = folder.url
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let (stdout, stderr) = try await offThePool {
            let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (stdout, stderr)
        }
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(stdout.contains("line-500"))
        #expect(stderr.components(separatedBy: "warning:").count == 2, "\(stderr)")
        #expect(stderr.contains("the run record"))
        #expect(stderr.contains("the run goes on"))
        // The record ends where writing failed, and reads as a run without an end.
        #expect(try await flowrun(["logs"], in: folder).status == 0)
        #expect(try await runs(in: folder).first?["result"] as? String == "interrupted")
    }
}
