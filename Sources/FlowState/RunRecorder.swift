import FlowEvents
import FlowFiles
import FlowModel
import Foundation
import Glibc

/// Writes a run's record as it goes: the header at once, then each event as `--events jsonl`
/// writes it, appended in batches of whole lines (`BatchedWriter`: every 50 ms, at 64 KiB, and
/// at the end), so a run killed at any moment (SIGKILL, a power cut) leaves a record readable
/// up to its last batch: the events of its last 50 ms at most are lost.
///
/// Until a task runs, the plan and the events (the start, tasks ready and skipped as up to
/// date) are held back: a run in which no task ran (a no-op rerun, every task up to date)
/// writes only its header, a plan line without entries, and its start and end (the result
/// and counts), not an event per task; the first task that runs writes what was held. A run
/// killed before any task ran leaves its header alone (an interrupted run, nothing done).
/// What is held is small: the events a few bytes each (`HeldRunStart`), and the plan not
/// even made (`planLine` makes it when it is written).
///
/// Each task's output is kept up to `outputCap` bytes; at the cut, one `task.output` line on
/// stderr says so, and the rest of that task's output is left out (the console showed it).
///
/// A failed write (a full disk) is told once to `onFailure` and the record stops there; the run
/// goes on, as make goes on when it cannot write its database: the record serves later runs,
/// it must not fail this one. So `writeFailure` is always nil.
///
/// - Warning: `state` is guarded by `lock`; the bus never calls `receive` twice at once anyway.
package final class RunRecorder: EventSink, @unchecked Sendable {
    package let path: String
    private let writer: DescriptorWriter
    /// Where events go: `writer`, in batches.
    private let output: BatchedWriter
    private let outputCap: Int
    private let lock = NSLock()
    private var state = State()
    /// Each ended task's fingerprint (`ResumeCheck`), kept on its final line for `--resume`.
    private var fingerprints: (@Sendable (TaskID) -> String?)?

    private struct State {
        /// Output bytes kept so far, for each task that has printed and not yet ended.
        var outputBytes: [TaskID: Int] = [:]
        /// Tasks whose output was cut, until they end.
        var cut: Set<TaskID> = []
        var line: [UInt8] = []
        var batch: [UInt8] = []
        /// The events held back while no task has run (see the type); nil once one has.
        var held: HeldRunStart? = HeldRunStart()
        /// The text of the last event's time, which the events of the same second share.
        var times = EventTime.Memo()
    }

    /// Makes the plan's line, written when a task first runs.
    private let planLine: @Sendable () -> [UInt8]

    /// Creates the record file at `path` (which must not exist) and writes `header` to it.
    /// - Parameter planLine: the plan's line (`RecordHeader.encodedPlan`), made only if a task
    ///   runs; by default that of `header.plan`.
    /// - Parameter flushTimer: when held events are written (`BatchedWriter`); a timer of its own by default.
    package init(
        path: String, header: RecordHeader, planLine: (@Sendable () -> [UInt8])? = nil, flushTimer: (any FlushTimer)? = nil,
        onFailure: @escaping @Sendable (WriteFailure) -> Void
    ) throws(RecordProblem) {
        // 0600: a task's output may hold a secret. O_EXCL|O_NOFOLLOW: nothing planted is written through.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, FileAccess.owner.fileMode)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: "cannot create it: \(String(cString: strerror(errno)))") }
        self.path = path
        self.outputCap = header.outputCap
        self.planLine = planLine ?? { header.encodedPlan() }
        self.writer = DescriptorWriter(descriptor: descriptor, name: "the run record \(path)", onFailure: onFailure)
        self.output = BatchedWriter(writer, timer: flushTimer)
        state.held = HeldRunStart(tasks: header.taskCount)
        // Written at once: a run killed before its first batch still leaves a record of its start.
        do {
            writer.write(try header.encodedHeader())
        } catch {
            writer.write(Array("{\"format\":\"\(RecordHeader.format)\",\"error\":\"cannot encode the header\"}\n".utf8))
        }
    }

    /// Keeps `fingerprint(task)` on each task's final line from now on (a `fingerprint` field
    /// that the event stream does not have). Call before the run starts.
    package func recordFingerprints(_ fingerprint: @escaping @Sendable (TaskID) -> String?) {
        lock.withLock { fingerprints = fingerprint }
    }

    package func receive(_ event: RunEvent) {
        receive([event])
    }

    package func receive(_ events: [RunEvent]) {
        guard writer.failure == nil else { return }
        lock.lock()
        defer { lock.unlock() }
        // `state` is passed down, not read in place: each access to a property of a class is a
        // check of the runtime's (exclusivity), and an event made about a dozen of them.
        record(events, in: &state, fingerprints: fingerprints)
    }

    private func record(_ events: [RunEvent], in state: inout State, fingerprints: ((TaskID) -> String?)?) {
        state.batch.removeAll(keepingCapacity: true)
        for event in events where !hold(event, in: &state, fingerprints) { append(event, to: &state, fingerprints) }
        output.write(state.batch)
    }

    /// Whether `event` is held back, no task having run yet. At the first event of a task that
    /// runs, the plan and the held events go to the batch; at the end of a run in which none
    /// ran, the plan line without entries and the run's start.
    private func hold(_ event: RunEvent, in state: inout State, _ fingerprints: ((TaskID) -> String?)?) -> Bool {
        guard var held = state.held.take() else { return false }
        if case .workflowFinished = event.kind {
            state.batch += RecordHeader.noTasksKeptPlan
            if let started = held.started { encode(started, to: &state, fingerprints) }
            return false
        }
        if held.hold(event) {
            state.held = held
            return true
        }
        state.batch += planLine()
        held.forEach { append($0, to: &state, fingerprints) }
        return false
    }

    private func append(_ event: RunEvent, to state: inout State, _ fingerprints: ((TaskID) -> String?)?) {
        switch event.kind {
        case .taskOutput(let task, _, let line):
            if state.cut.contains(task) { return }
            let kept = state.outputBytes[task, default: 0] + line.utf8.count + 1
            guard kept <= outputCap else {
                state.cut.insert(task)
                let marker = RunEvent(
                    seq: event.seq, timeMilliseconds: event.timeMilliseconds,
                    kind: .taskOutput(task: task, stream: .stderr, line: Self.cutMarker(cap: outputCap)))
                encode(marker, to: &state, fingerprints)
                return
            }
            state.outputBytes[task] = kept
        case .taskSucceeded(let task, _, _), .taskFailed(let task, _, _, _, _, _), .taskCancelled(let task, _), .taskSkipped(let task, _, _):
            // Memory stays bounded by the tasks running, not by every task of the run. Most
            // tasks of a graph of small ones print nothing: no hashing of their ids then.
            if !state.outputBytes.isEmpty { state.outputBytes.removeValue(forKey: task) }
            if !state.cut.isEmpty { state.cut.remove(task) }
        default:
            break
        }
        encode(event, to: &state, fingerprints)
    }

    private func encode(_ event: RunEvent, to state: inout State, _ fingerprints: ((TaskID) -> String?)?) {
        EventCodec.encode(event, into: &state.line, times: &state.times)
        switch event.kind {
        case .taskSucceeded(let task, _, _), .taskSkipped(let task, _, _):
            // Hex digits need no escaping: put in place of the closing brace and newline, which
            // follow it (no interpolated string, no move of the line's bytes).
            if let fingerprint = fingerprints?(task), state.line.count >= 2 {
                state.line.removeLast(2)
                state.line += Self.fingerprintKey
                state.line += fingerprint.utf8
                state.line += Self.fingerprintEnd
            }
        default:
            break
        }
        state.batch += state.line
    }

    private static let fingerprintKey = Array(",\"fingerprint\":\"".utf8)
    private static let fingerprintEnd = Array("\"}\n".utf8)

    /// The line that marks where a task's output was cut in the record.
    package static func cutMarker(cap: Int) -> String {
        "[flowrun: output cut here: the run record keeps the first \(cap.counted("byte")) of each task's output (--record-output-cap)]"
    }

    /// Writes the events of the last batch, flushes the record to the disk and closes it.
    /// Events still held (a run that broke off before any task ran) are dropped: the record
    /// stays a header, as of an interrupted run. After `syncLater(in:)`, the flush and the
    /// close run on a worker in that group.
    package func finish() {
        output.finish()
        let sync: @Sendable () -> Void = { [writer] in
            writer.synchronize()
            close(writer.descriptor)
        }
        if let group = lock.withLock({ laterSyncs }) { DispatchQueue.global().async(group: group, execute: sync) } else { sync() }
    }

    /// The group `finish()` flushes and closes the record in, off the caller's thread.
    private var laterSyncs: DispatchGroup?

    /// Has `finish()` flush and close the record on a worker in `group`, which the caller waits
    /// for before it exits: the run's other last writes (its task state, its downloads'
    /// folders) go to the disk at the same time, rather than each after the one before.
    package func syncLater(in group: DispatchGroup) {
        lock.withLock { laterSyncs = group }
    }
}
