import FlowModel
import Foundation
import Testing

@testable import FlowState

/// A run in which no task ran (each was up to date) is recorded as its start and end, not an
/// event per task; a run in which one ran keeps every event, the held ones included.
@Suite struct NoTaskRanRecordTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("quiet-records-\(UUID().uuidString)").path

    let header = RecordHeader(
        run: "20261126-170000-000", workflow: "ci", file: "/srv/ci/flowrun.yaml", digest: "sha256:00",
        startedMilliseconds: 1_764_176_400_000, outputCap: 1 << 20,
        plan: [.init(task: "build", needs: [], kind: "shell"), .init(task: "test", needs: ["build"], kind: "shell")])

    func event(_ seq: Int, _ kind: RunEvent.Kind) -> RunEvent {
        RunEvent(seq: seq, timeMilliseconds: 1_764_176_400_000 + Int64(seq), kind: kind)
    }

    func record(_ events: [RunEvent], finished: Bool = true) throws -> (record: RunRecord, lines: [Substring]) {
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let path = base + "/\(header.run).jsonl"
        let recorder = try RunRecorder(path: path, header: header) { failure in Issue.record("write failed: \(failure)") }
        recorder.recordFingerprints { _ in "ab12" }
        for event in events { recorder.receive(event) }
        recorder.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (try RunRecord(path: path), text.split(separator: "\n"))
    }

    var upToDate: [RunEvent] {
        [
            event(1, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 2, concurrency: 2)),
            event(2, .taskReady(task: "build")),
            event(3, .taskSkipped(task: "build", reason: SkipReason.upToDate)),
            event(4, .taskReady(task: "test")),
            event(5, .taskSkipped(task: "test", reason: SkipReason.upToDate)),
        ]
    }

    var finished: RunEvent {
        var counts = FinalCounts()
        counts.skipped = 2
        counts.upToDate = 2
        return event(6, .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 6, counts: counts))
    }

    @Test func aRunInWhichNoTaskRanKeepsItsStartAndEndOnly() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (record, lines) = try record(upToDate + [finished])
        #expect(lines.count == 4, "\(lines)")
        #expect(record.plan().isEmpty)
        var kinds: [RunEvent.Kind] = []
        #expect(try record.forEachEvent { kinds.append($0.kind) } == 0)
        #expect(kinds == [upToDate[0].kind, finished.kind])
        let summary = record.summary()
        #expect(summary.result == .succeeded)
        #expect(summary.counts.upToDate == 2 && summary.counts.skipped == 2)
        #expect(record.taskResults().isEmpty, "resume keeps nothing on this run's word")
        #expect(record.header.taskCount == 2)
    }

    @Test func aRunInWhichATaskRanKeepsEveryEventInOrderWithTheFingerprints() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let ran = [
            upToDate[0], upToDate[1], upToDate[2], upToDate[3], event(5, .taskStarted(task: "test", attempt: 1, kind: "shell")),
            event(6, .taskSucceeded(task: "test", attempts: 1, durationMilliseconds: 1)),
        ]
        let (record, _) = try record(ran)
        #expect(record.plan() == header.plan)
        var kinds: [RunEvent.Kind] = []
        #expect(try record.forEachEvent { kinds.append($0.kind) } == 0)
        #expect(kinds == ran.map(\.kind))
        let results = record.taskResults()
        #expect(results["build"] == RecordedTask(state: .skipped(reason: SkipReason.upToDate), fingerprint: "ab12"))
        #expect(results["test"] == RecordedTask(state: .succeeded, fingerprint: "ab12"))
    }

    @Test func aRunKilledBeforeAnyTaskRanIsReadAsInterruptedWithNothingDone() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (record, lines) = try record(upToDate)
        #expect(lines.count == 1)
        #expect(record.summary().result == .interrupted)
        #expect(record.summary().counts == FinalCounts())
        #expect(record.taskResults().isEmpty)
    }
}
