import FlowModel
import FlowTestSupport
import Foundation
import Testing

@testable import FlowState

/// The record is written in batches: read while the run goes on (or after a kill -9), it holds
/// every event of the batches written so far, whole, and the end of the run writes the rest.
@Suite struct RecordBatchTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("batched-records-\(UUID().uuidString)").path

    let header = RecordHeader(
        run: "20261126-190000-000", workflow: "ci", file: "/srv/ci/flowrun.yaml", digest: "sha256:00",
        startedMilliseconds: 1_764_183_600_000, outputCap: 1 << 20,
        plan: [.init(task: "build", needs: [], kind: "shell"), .init(task: "test", needs: ["build"], kind: "shell")])

    func event(_ seq: Int, _ kind: RunEvent.Kind) -> RunEvent {
        RunEvent(seq: seq, timeMilliseconds: 1_764_183_600_000 + Int64(seq), kind: kind)
    }

    var run: [RunEvent] {
        var counts = FinalCounts()
        counts.succeeded = 2
        return [
            event(1, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 2, concurrency: 2)),
            event(2, .taskStarted(task: "build", attempt: 1, kind: "shell")),
            event(3, .taskOutput(task: "build", stream: .stdout, line: "compiling")),
            event(4, .taskSucceeded(task: "build", attempts: 1, durationMilliseconds: 2)),
            event(5, .taskStarted(task: "test", attempt: 1, kind: "shell")),
            event(6, .taskSucceeded(task: "test", attempts: 1, durationMilliseconds: 1)),
            event(7, .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 7, counts: counts)),
        ]
    }

    func seqs(in path: String) throws -> [Int] {
        var seqs: [Int] = []
        _ = try RunRecord(path: path).forEachEvent { seqs.append($0.seq) }
        return seqs
    }

    @Test func aRecordReadMidRunHoldsTheBatchesWrittenAndTheEndWritesTheRest() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let path = base + "/\(header.run).jsonl"
        let timer = ManualFlushTimer()
        let recorder = try RunRecorder(path: path, header: header, flushTimer: timer) { failure in Issue.record("write failed: \(failure)") }
        // The header is there at once: a run killed before its first batch is an interrupted one.
        #expect(try RunRecord(path: path).summary().result == .interrupted)
        for event in run.prefix(2) { recorder.receive(event) }
        recorder.receive(Array(run[2..<4]))
        #expect(try seqs(in: path) == [])
        timer.fire()
        #expect(try seqs(in: path) == [1, 2, 3, 4])
        let midRun = try RunRecord(path: path)
        #expect(midRun.summary().result == .interrupted)
        #expect(midRun.taskResults()["build"]?.state == .succeeded)
        for event in run[4...] { recorder.receive(event) }
        #expect(try seqs(in: path) == [1, 2, 3, 4])  // what a kill -9 now would leave
        recorder.finish()
        #expect(try seqs(in: path) == [1, 2, 3, 4, 5, 6, 7])
        #expect(try RunRecord(path: path).summary().result == .succeeded)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
    }

    /// Descriptors of this process open on `path` (its /proc/self/fd links).
    func openDescriptors(on path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
    }

    /// `run` hands the record's fsync to a worker (`syncLater(in:)`) so that its other last
    /// writes overlap it: the record is whole once `finish()` returns, and closed (flushed) once
    /// the group is done, which `run` waits for before it exits.
    @Test func aRecordSyncedLaterIsWholeAtFinishAndClosedOnceItsGroupIsDone() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let path = base + "/\(header.run).jsonl"
        let recorder = try RunRecorder(path: path, header: header, flushTimer: ManualFlushTimer()) { failure in
            Issue.record("write failed: \(failure)")
        }
        let group = DispatchGroup()
        recorder.syncLater(in: group)
        for event in run { recorder.receive(event) }
        #expect(openDescriptors(on: path) == 1)
        recorder.finish()
        #expect(try seqs(in: path) == [1, 2, 3, 4, 5, 6, 7])
        group.wait()
        #expect(openDescriptors(on: path) == 0)
        #expect(try RunRecord(path: path).summary().result == .succeeded)
    }
}
