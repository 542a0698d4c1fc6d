import FlowEvents
import FlowModel
import Foundation
import Testing

@testable import FlowState

/// The run record as `flowrun runs`, `flowrun logs` and `--resume` read it back.
@Suite struct RunRecordTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("records-\(UUID().uuidString)").path

    func header(run: String = "20261125-030512-123", cap: Int = 1 << 20) -> RecordHeader {
        RecordHeader(
            run: run, workflow: "ci", file: "/srv/ci/flowrun.yaml", digest: "sha256:00", startedMilliseconds: 1_764_039_912_123,
            outputCap: cap,
            plan: [
                .init(task: "build", needs: [], kind: "shell"), .init(task: "test", needs: ["build"], kind: "shell"),
                .init(task: "deploy", needs: ["test"], kind: "shell"),
            ])
    }

    func event(_ seq: Int, _ kind: RunEvent.Kind) -> RunEvent {
        RunEvent(seq: seq, timeMilliseconds: 1_764_039_912_123 + Int64(seq) * 100, kind: kind)
    }

    func record(_ header: RecordHeader, _ events: [RunEvent]) throws -> String {
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let path = base + "/\(header.run).jsonl"
        let recorder = try RunRecorder(path: path, header: header) { failure in Issue.record("write failed: \(failure)") }
        for event in events { recorder.receive(event) }
        recorder.finish()
        return path
    }

    var failedRun: [RunEvent] {
        var counts = FinalCounts()
        counts.succeeded = 1
        counts.failed = 1
        counts.skipped = 1
        return [
            event(1, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 3, concurrency: 2)),
            event(2, .taskStarted(task: "build", attempt: 1, kind: "shell")),
            event(3, .taskOutput(task: "build", stream: .stdout, line: "compiling \"main\" \u{1B}[31m")),
            event(4, .taskSucceeded(task: "build", attempts: 1, durationMilliseconds: 100)),
            event(5, .taskStarted(task: "test", attempt: 1, kind: "shell")),
            event(6, .taskFailed(task: "test", attempts: 1, durationMilliseconds: 100, reason: "exited with status 3", exitCode: 3)),
            event(7, .taskSkipped(task: "deploy", reason: "needs 'test', which did not succeed")),
            event(8, .workflowFinished(workflow: "ci", status: .failed, durationMilliseconds: 700, counts: counts)),
        ]
    }

    @Test func aRecordGivesBackItsHeaderItsEventsAndEachTasksEnd() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = try record(header(), failedRun)
        let record = try RunRecord(path: path)
        var written = header()
        written.plan = []
        #expect(record.header == written)
        #expect(record.plan() == header().plan)
        var events: [RunEvent.Kind] = []
        #expect(try record.forEachEvent { events.append($0.kind) } == 0)
        #expect(events == failedRun.map(\.kind))
        let summary = record.summary()
        #expect(summary.result == .failed)
        #expect(summary.counts.failed == 1 && summary.counts.succeeded == 1 && summary.counts.skipped == 1)
        #expect(summary.endedMilliseconds == failedRun.last!.timeMilliseconds)
        let results = record.taskResults()
        #expect(results["build"]?.state == .succeeded)
        #expect(results["test"]?.state == .failed(reason: "exited with status 3"))
        #expect(results["deploy"]?.state == .skipped(reason: "needs 'test', which did not succeed"))
    }

    @Test func eachEndedTasksFingerprintIsKeptForResumeAndTheEventsReadBackUnchanged() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let path = base + "/fingerprints.jsonl"
        let recorder = try RunRecorder(path: path, header: header()) { failure in Issue.record("write failed: \(failure)") }
        recorder.recordFingerprints { task in task == "build" ? "ab12" : task == "deploy" ? "cd34" : nil }
        let events = [
            event(1, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 3, concurrency: 2)),
            event(2, .taskStarted(task: "build", attempt: 1, kind: "shell")),
            event(3, .taskSucceeded(task: "build", attempts: 1, durationMilliseconds: 100)),
            event(4, .taskSkipped(task: "deploy", reason: "done-before", run: "20261125-030000-000")),
            event(5, .taskStarted(task: "test", attempt: 1, kind: "shell")),
            event(6, .taskStarted(task: "lint", attempt: 1, kind: "shell")),
            event(
                7,
                .taskFailed(task: "lint", attempts: 1, durationMilliseconds: 5, reason: "exited with status 1", exitCode: 1, allowed: true)),
        ]
        for event in events { recorder.receive(event) }
        recorder.finish()
        let record = try RunRecord(path: path)
        var read: [RunEvent.Kind] = []
        #expect(try record.forEachEvent { read.append($0.kind) } == 0)
        #expect(read == events.map(\.kind))
        let results = record.taskResults()
        #expect(results["build"] == RecordedTask(state: .succeeded, fingerprint: "ab12"))
        #expect(results["deploy"] == RecordedTask(state: .skipped(reason: "done-before"), fingerprint: "cd34"))
        #expect(results["test"] == RecordedTask(state: .unfinished, fingerprint: nil))
    }

    @Test func aTasksOutputPastTheCapIsCutWithAMarkerAndItsEndIsKept() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        var events = [event(1, .taskStarted(task: "build", attempt: 1, kind: "shell"))]
        for index in 0..<5 { events.append(event(2 + index, .taskOutput(task: "build", stream: .stdout, line: "line \(index)..."))) }
        events.append(event(7, .taskOutput(task: "test", stream: .stdout, line: "other task")))
        events.append(event(8, .taskSucceeded(task: "build", attempts: 1, durationMilliseconds: 5)))
        let path = try record(header(cap: 25), events)  // "line 0...\n" is 10 bytes: two lines fit
        var lines: [String] = []
        var succeeded = false
        try RunRecord(path: path).forEachEvent { event in
            if case .taskOutput(let task, _, let line) = event.kind { lines.append("\(task): \(line)") }
            if case .taskSucceeded = event.kind { succeeded = true }
        }
        #expect(lines == ["build: line 0...", "build: line 1...", "build: " + RunRecorder.cutMarker(cap: 25), "test: other task"])
        #expect(succeeded)
    }

    @Test func aRecordCutShortByAKillIsReadUpToItsLastWholeEvent() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = try record(header(), Array(failedRun.prefix(5)))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"seq\":6,\"time\":\"2026-11-25T03:0".utf8))  // the write a SIGKILL cut
        try handle.close()
        let record = try RunRecord(path: path)
        var count = 0
        #expect(try record.forEachEvent { _ in count += 1 } == 1)
        #expect(count == 5)
        #expect(record.summary().result == .interrupted)
        #expect(record.summary().counts.succeeded == 1)
        #expect(record.taskResults()["test"]?.state == .unfinished)
        #expect(record.taskResults()["build"]?.state == .succeeded)
    }

    @Test func aForeignOrDamagedFileIsReportedAndNeverFatal() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let cases: [(String, Data)] = [
            ("empty", Data()), ("text", Data("hello\n".utf8)), ("binary", Data((0..<4096).map { UInt8($0 % 256) })),
            ("array", Data("[1,2]\n".utf8)),
        ]
        for (name, contents) in cases {
            let path = base + "/\(name).jsonl"
            try contents.write(to: URL(fileURLWithPath: path))
            #expect(throws: RecordProblem.foreign(path: path)) { try RunRecord(path: path) }
        }
        let damaged = base + "/damaged.jsonl"
        try Data("{\"format\":\"flowrun-run-record\",\"version\":1}\n".utf8).write(to: URL(fileURLWithPath: damaged))
        #expect(throws: RecordProblem.self) { try RunRecord(path: damaged) }
        #expect(throws: RecordProblem.self) { try RunRecord(path: base + "/missing.jsonl") }
        let cut = base + "/cut.jsonl"
        try Data("{\"format\":\"flowrun-run-record\",\"vers".utf8).write(to: URL(fileURLWithPath: cut))
        #expect(throws: RecordProblem.corrupt(path: cut, detail: "its header is cut short")) { try RunRecord(path: cut) }
    }

    @Test func aRecordFromANewerFlowrunIsRefusedWithAClearMessage() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let path = base + "/newer.jsonl"
        try Data("{\"format\":\"flowrun-run-record\",\"version\":2,\"run\":\"x\"}\n".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try RunRecord(path: path)
            Issue.record("read a newer record")
        } catch {
            #expect(error == .newer(path: path, version: 2))
            #expect(error.description.contains("written by a newer flowrun"))
            #expect(error.description.contains("upgrade flowrun"))
        }
    }

    @Test func oldRecordsArePrunedPastTheCountAndForeignFilesAreLeftAlone() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let store = RunRecordStore(folder: StateFolder(path: base))
        var runs: [String] = []
        for index in 0..<5 {
            let (run, path) = try store.newRecord(forWorkflow: "/srv/ci/flowrun.yaml", startedMilliseconds: 1_764_039_912_000 + Int64(index) * 1000)
            var header = header(run: run)
            header.startedMilliseconds = 1_764_039_912_000 + Int64(index) * 1000
            let recorder = try RunRecorder(path: path, header: header) { _ in }
            recorder.finish()
            runs.append(run)
        }
        let other = try store.newRecord(forWorkflow: "/srv/ci/other.yaml", startedMilliseconds: 1_764_039_900_000)
        try Data().write(to: URL(fileURLWithPath: other.path))
        let foreign = store.recordsPath(forWorkflow: "/srv/ci/flowrun.yaml") + "/notes.jsonl"
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: foreign))
        #expect(store.prune(forWorkflow: "/srv/ci/flowrun.yaml", keep: 3).isEmpty)
        let (records, problems) = store.records(forWorkflow: "/srv/ci/flowrun.yaml")
        #expect(records.map(\.run) == Array(runs.suffix(3).reversed()))
        #expect(problems == [.foreign(path: foreign)])
        #expect(FileManager.default.fileExists(atPath: other.path))
        #expect(FileManager.default.fileExists(atPath: base + "/.gitignore"))
    }

    @Test func thePlanReadsBackWhateverItsFieldsHold() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        var written = header()
        written.plan[1].fingerprint = "quote \" backslash \\ control \u{1} é"
        written.plan[2].needs = ["build", "test"]
        // The plan is written when a task first runs (a run in which none ran keeps none).
        let record = try RunRecord(path: try record(written, [event(1, .taskStarted(task: "build", attempt: 1, kind: "shell"))]))
        #expect(record.plan() == written.plan)
        #expect(record.taskResults()["test"] == RecordedTask(state: .unfinished, fingerprint: written.plan[1].fingerprint))
    }

    @Test func runIDsSortByStartTime() {
        #expect(RunRecordStore.runID(milliseconds: 1_764_039_912_123) == "20251125-030512-123")
        #expect(RunRecordStore.runID(milliseconds: 1_764_039_912_123) < RunRecordStore.runID(milliseconds: 1_764_039_913_001))
    }

    @Test func eventTimesReadBackToTheMillisecond() {
        #expect(EventCodec.milliseconds(of: "2026-11-23T09:30:01.123Z") == 1_795_426_201_123)
        #expect(EventCodec.milliseconds(of: "1970-01-01T00:00:00.000Z") == 0)
        #expect(EventCodec.milliseconds(of: "2026-11-23 09:30:01") == nil)
    }
}
