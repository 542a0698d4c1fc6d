/// One lifecycle change of a run, as the event stream carries it.
///
/// The engine emits kinds; the event bus stamps `seq` (from 1, no gaps) and `time`, and hands
/// each event to every sink, one at a time.
package struct RunEvent: Sendable {
    package var seq: Int
    /// Milliseconds since 1970-01-01T00:00:00Z.
    package var timeMilliseconds: Int64
    package var kind: Kind

    package init(seq: Int, timeMilliseconds: Int64, kind: Kind) {
        self.seq = seq
        self.timeMilliseconds = timeMilliseconds
        self.kind = kind
    }

    package enum Kind: Sendable, Equatable {
        case workflowStarted(workflow: String, file: String, tasks: Int, concurrency: Int)
        case taskReady(task: TaskID)
        case taskStarted(task: TaskID, attempt: Int, kind: String)
        case taskOutput(task: TaskID, stream: OutputStream, line: String)
        case taskProgress(task: TaskID, done: Int64, total: Int64?, unit: ProgressUnit)
        /// `exitCode`: the failed attempt's exit status, for a shell task whose process exited.
        case taskRetrying(task: TaskID, attempt: Int, delayMilliseconds: Int64, reason: String, exitCode: Int? = nil)
        case taskSucceeded(task: TaskID, attempts: Int, durationMilliseconds: Int64)
        /// `allowed`: the task has `continue_on_error`, so the failure does not fail the run.
        case taskFailed(task: TaskID, attempts: Int, durationMilliseconds: Int64, reason: String, exitCode: Int?, allowed: Bool = false)
        case taskCancelled(task: TaskID, reason: String)
        /// `run`: for `SkipReason.doneBefore`, the run whose success the task keeps.
        case taskSkipped(task: TaskID, reason: String, run: String? = nil)
        case queueSuspended
        case queueResumed
        /// The run was cancelled, and these `when: always` tasks run (or go on) as cleanup.
        case workflowCleanup(reason: String, tasks: [TaskID])
        case workflowFinished(workflow: String, status: RunStatus, durationMilliseconds: Int64, counts: FinalCounts)
    }

    /// The event's name in the stream, such as `task.started`.
    package var name: String {
        switch kind {
        case .workflowStarted: "workflow.started"
        case .taskReady: "task.ready"
        case .taskStarted: "task.started"
        case .taskOutput: "task.output"
        case .taskProgress: "task.progress"
        case .taskRetrying: "task.retrying"
        case .taskSucceeded: "task.succeeded"
        case .taskFailed: "task.failed"
        case .taskCancelled: "task.cancelled"
        case .taskSkipped: "task.skipped"
        case .queueSuspended: "queue.suspended"
        case .queueResumed: "queue.resumed"
        case .workflowCleanup: "workflow.cleanup"
        case .workflowFinished: "workflow.finished"
        }
    }

    /// The task the event is about, if any.
    package var task: TaskID? {
        switch kind {
        case .taskReady(let task), .taskStarted(let task, _, _), .taskOutput(let task, _, _),
            .taskProgress(let task, _, _, _), .taskRetrying(let task, _, _, _, _), .taskSucceeded(let task, _, _),
            .taskFailed(let task, _, _, _, _, _), .taskCancelled(let task, _), .taskSkipped(let task, _, _):
            task
        case .workflowStarted, .queueSuspended, .queueResumed, .workflowCleanup, .workflowFinished:
            nil
        }
    }
}

package enum OutputStream: String, Sendable {
    case stdout, stderr
}

package enum ProgressUnit: String, Sendable {
    case bytes, entries
}

/// How a run ended.
package enum RunStatus: String, Sendable {
    case succeeded, failed, cancelled
}

/// The number of tasks in each final state.
package struct FinalCounts: Sendable, Equatable {
    package var succeeded = 0
    /// Every failure, the allowed ones included.
    package var failed = 0
    /// The failures of `continue_on_error` tasks, which do not fail the run: part of `failed`.
    package var allowed = 0
    package var cancelled = 0
    package var skipped = 0
    /// Those of `skipped` that were up to date (`SkipReason.upToDate`).
    package var upToDate = 0
    /// Those of `skipped` that succeeded in the run resumed (`SkipReason.doneBefore`).
    package var doneBefore = 0
    package init() {}
}

/// Receives every event of a run, in `seq` order.
///
/// Implementation requirements: `receive` is called once at a time, never two calls at once,
/// but from whichever thread emitted (the bus has no thread of its own); a sink needs no lock for
/// its own state, and must not block for long: it holds up every other sink and the thread that
/// emitted, the engine's included.
package protocol EventSink: AnyObject, Sendable {
    func receive(_ event: RunEvent)
    /// Events that were waiting together, in `seq` order: a sink that writes may write them
    /// with one `write(2)`. By default each is received in turn.
    func receive(_ events: [RunEvent])
    /// Called once after `workflow.finished`: write summaries, flush files.
    func finish()
    /// The first write of this sink that failed, if one did; the sink writes nothing after it.
    var writeFailure: WriteFailure? { get }
}

extension EventSink {
    package func receive(_ events: [RunEvent]) {
        for event in events { receive(event) }
    }

    package func finish() {}

    package var writeFailure: WriteFailure? { nil }
}
