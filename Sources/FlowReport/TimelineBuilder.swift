import FlowConsole
import FlowModel
import FlowState

/// Turns a run's events into a `RunTimeline`: fed from a record (`RunTimeline.read`) or live as
/// an event sink during a run (`TimelineSink`).
///
/// Memory is bounded by the plan: each task keeps its attempts and its last `tailLines` output
/// lines, each cut to `maximumLineLength`.
package struct TimelineBuilder: Sendable {
    /// How many of a task's last output lines the report keeps.
    package static let tailLines = 20
    /// Longer output lines are cut, so that a tail stays a readable size.
    package static let maximumLineLength = 300
    /// Bytes of ended tasks' tails kept in all, failures and the others apart: what a run of
    /// 100,000 chatty tasks holds (the HTML keeps 2 MiB of them, the job summary under 1 MiB).
    package static let keptFailureTailBytes = 4 << 20
    package static let keptTailBytes = 2 << 20

    private var partial: RunTimeline
    private var index: [TaskID: Int] = [:]
    /// The start of each task's attempt that has not ended yet.
    private var open: [Int: (number: Int, start: Int64)] = [:]
    private var finished = false
    private var keptFailureBytes = 0
    private var keptBytes = 0

    package init(workflow: String, run: String?, file: String, startedMilliseconds: Int64, plan: [RecordHeader.PlanEntry]) {
        var positions: [TaskID: Int] = [:]
        for (position, entry) in plan.enumerated() where positions[entry.task] == nil { positions[entry.task] = position }
        let tasks = plan.map { entry in
            RunTimeline.Task(
                id: entry.task, needs: entry.needs.compactMap { positions[$0] }, kind: entry.kind, queue: entry.queue,
                priority: entry.priority)
        }
        partial = RunTimeline(
            workflow: workflow, run: run, file: file, startedMilliseconds: startedMilliseconds, endedMilliseconds: startedMilliseconds,
            result: .interrupted, counts: FinalCounts(), concurrency: nil, tasks: tasks, slotCount: 0, criticalPath: [])
        index = positions
    }

    package mutating func add(_ event: RunEvent) {
        let time = event.timeMilliseconds
        partial.endedMilliseconds = max(partial.endedMilliseconds, time)
        switch event.kind {
        case .workflowStarted(let workflow, _, _, let concurrency):
            if partial.workflow.isEmpty { partial.workflow = workflow }
            partial.concurrency = concurrency
        case .workflowFinished(_, let status, _, let counts):
            partial.result = RunTimeline.Result(rawValue: status.rawValue) ?? .interrupted
            partial.counts = counts
            finished = true
        case .taskReady(let task):
            guard let at = position(of: task) else { return }
            if partial.tasks[at].readyMilliseconds == nil { partial.tasks[at].readyMilliseconds = time }
        case .taskStarted(let task, let attempt, _):
            guard let at = position(of: task), open[at]?.number != attempt else { return }
            if partial.tasks[at].readyMilliseconds == nil { partial.tasks[at].readyMilliseconds = time }
            if attempt > 1 { appendLine("── attempt \(attempt) ──", to: at) }
            open[at] = (attempt, time)
        case .taskOutput(let task, _, let line):
            guard let at = position(of: task) else { return }
            appendLine(line, to: at)
        case .taskRetrying(let task, _, _, let reason, let exitCode):
            guard let at = position(of: task) else { return }
            closeAttempt(of: at, at: time, result: .retried, reason: reason, exitCode: exitCode)
        case .taskSucceeded(let task, _, _):
            // A shell command succeeds only by exiting 0 (its event carries no status).
            let exitCode = position(of: task).flatMap { partial.tasks[$0].kind == "shell" ? 0 : nil }
            end(task, at: time, result: .succeeded, exitCode: exitCode)
        case .taskFailed(let task, _, _, let reason, let exitCode, let allowed):
            end(task, at: time, result: allowed ? .allowed : .failed, reason: reason, exitCode: exitCode)
        case .taskCancelled(let task, let reason):
            end(task, at: time, result: .cancelled, reason: reason)
        case .taskSkipped(let task, let reason, let run):
            let result: RunTimeline.TaskResult =
                reason == SkipReason.upToDate ? .upToDate : reason == SkipReason.doneBefore ? .doneBefore : .skipped
            end(task, at: time, result: result, reason: run.map { "\(reason) (run \($0))" } ?? reason)
        case .taskProgress, .queueSuspended, .queueResumed, .workflowCleanup:
            break
        }
    }

    private func position(of task: TaskID) -> Int? { index[task] }

    private mutating func end(_ task: TaskID, at time: Int64, result: RunTimeline.TaskResult, reason: String? = nil, exitCode: Int? = nil) {
        guard let at = position(of: task) else { return }
        closeAttempt(of: at, at: time, result: result, reason: reason, exitCode: exitCode)
        partial.tasks[at].exitCode = exitCode
        partial.tasks[at].endMilliseconds = time
        partial.tasks[at].result = result
        keepOrDropTail(of: at, failed: result == .failed || result == .allowed)
        partial.tasks[at].reason = reason
        if partial.tasks[at].readyMilliseconds == nil { partial.tasks[at].readyMilliseconds = time }
    }

    private mutating func closeAttempt(of at: Int, at time: Int64, result: RunTimeline.TaskResult, reason: String?, exitCode: Int? = nil) {
        guard let attempt = open.removeValue(forKey: at) else { return }
        partial.tasks[at].attempts.append(
            RunTimeline.Attempt(
                number: attempt.number, startMilliseconds: attempt.start, endMilliseconds: time, result: result, reason: reason,
                exitCode: exitCode))
    }

    /// Keeps an ended task's tail while the budget lasts; past it, the lines are counted as left out.
    private mutating func keepOrDropTail(of at: Int, failed: Bool) {
        var bytes = 0
        for line in partial.tasks[at].tail.suffix(Self.tailLines) { bytes += line.utf8.count + 1 }
        guard bytes > 0 else { return }
        if failed, keptFailureBytes + bytes <= Self.keptFailureTailBytes {
            keptFailureBytes += bytes
        } else if !failed, keptBytes + bytes <= Self.keptTailBytes {
            keptBytes += bytes
        } else {
            partial.tasks[at].droppedLines += partial.tasks[at].tail.count
            partial.tasks[at].tail = []
        }
    }

    private mutating func appendLine(_ line: String, to at: Int) {
        let limit = Self.maximumLineLength
        let text = line.utf8.count > limit && line.count > limit ? String(line.prefix(limit)) + "…" : line
        partial.tasks[at].tail.append(text)
        if partial.tasks[at].tail.count > Self.tailLines * 2 {
            // Trimmed in batches, so that a task of a million lines costs no more than one of twenty.
            let extra = partial.tasks[at].tail.count - Self.tailLines
            partial.tasks[at].tail.removeFirst(extra)
            partial.tasks[at].droppedLines += extra
        }
    }

    /// The timeline so far: attempts still open end at the last event (flowrun was killed),
    /// slots are assigned and the critical path marked. With `runningAt` (a flowrun is still
    /// writing the record, and it is that time now), a record with no end is of a run still
    /// going: it and its open attempts are `running`, and they last until now.
    package func timeline(runningAt now: Int64? = nil) -> RunTimeline {
        var result = partial
        let running = !finished && now != nil
        if running, let now {
            result.result = .running
            result.endedMilliseconds = max(result.endedMilliseconds, now)
        }
        for (at, attempt) in open {
            let state: RunTimeline.TaskResult = running ? .running : .unfinished
            result.tasks[at].attempts.append(
                RunTimeline.Attempt(number: attempt.number, startMilliseconds: attempt.start, endMilliseconds: result.endedMilliseconds, result: state))
            result.tasks[at].result = state
        }
        for at in result.tasks.indices where !result.tasks[at].tail.isEmpty {
            let extra = max(result.tasks[at].tail.count - Self.tailLines, 0)
            result.tasks[at].tail.removeFirst(extra)
            result.tasks[at].droppedLines += extra
            // Terminal escapes mean nothing in a browser or a Markdown file.
            result.tasks[at].tail = result.tasks[at].tail.map { ConsoleText.sanitized($0) }
        }
        if !finished { result.counts = Self.counts(of: result.tasks) }
        let slots = SlotAssignment.assign(result.tasks.map(\.busy))
        for at in result.tasks.indices { result.tasks[at].slot = slots.slots[at] }
        result.slotCount = slots.count
        result.criticalPath = CriticalPath.find(in: result.tasks)
        for at in result.criticalPath { result.tasks[at].critical = true }
        return result
    }

    /// Counts from the tasks' ends, for a record with no `workflow.finished`.
    private static func counts(of tasks: [RunTimeline.Task]) -> FinalCounts {
        var counts = FinalCounts()
        for task in tasks {
            switch task.result {
            case .succeeded: counts.succeeded += 1
            case .failed: counts.failed += 1
            case .allowed:
                counts.failed += 1
                counts.allowed += 1
            case .cancelled: counts.cancelled += 1
            case .skipped: counts.skipped += 1
            case .upToDate:
                counts.skipped += 1
                counts.upToDate += 1
            case .doneBefore:
                counts.skipped += 1
                counts.doneBefore += 1
            case .retried, .unfinished, .running, .notReached: break
            }
        }
        return counts
    }
}
