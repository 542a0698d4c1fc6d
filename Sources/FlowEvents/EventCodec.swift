import FlowModel

/// The event stream's JSON Lines, both ways: `encode` writes the line of an event for
/// `--events jsonl`, `--events-file` and the run record, and `decode` reads one back (a run
/// record, for `--resume`, `logs` and reports). One codec, so that what is written is what is
/// read; the line is a contract that `schemas/events.schema.json` describes.
///
/// Each line is `{"seq":N,"time":"2026-11-23T09:30:01.123Z","event":NAME,...}` with the fields
/// of the spec's table in its order. Keys are always present: `total` (task.progress) and
/// `exit_code` (task.failed) are `null` when unknown rather than omitted, so that a consumer
/// reads one shape per event.
package enum EventCodec {
    /// Replaces `buffer` with the line of `event` and its newline, reusing its storage.
    package static func encode(_ event: RunEvent, into buffer: inout [UInt8]) {
        var memo = EventTime.Memo()
        encode(event, into: &buffer, times: &memo)
    }

    /// As `encode(_:into:)`, for a writer of many events: `times` keeps the text of the last
    /// time, which the events of the same second share.
    package static func encode(_ event: RunEvent, into buffer: inout [UInt8], times: inout EventTime.Memo) {
        var object = JSONObjectWriter(reusing: &buffer)
        object.field("seq", event.seq)
        object.timeField("time", milliseconds: event.timeMilliseconds, memo: &times)
        object.field("event", event.name)
        switch event.kind {
        case .workflowStarted(let workflow, let file, let tasks, let concurrency):
            object.field("workflow", workflow)
            object.field("file", file)
            object.field("tasks", tasks)
            object.field("concurrency", concurrency)
        case .taskReady(let task):
            object.field("task", task)
        case .taskStarted(let task, let attempt, let kind):
            object.field("task", task)
            object.field("attempt", attempt)
            object.field("kind", kind)
        case .taskOutput(let task, let stream, let line):
            object.field("task", task)
            object.field("stream", stream.rawValue)
            object.field("line", line)
        case .taskProgress(let task, let done, let total, let unit):
            object.field("task", task)
            object.field("done", done)
            object.field("total", total)
            object.field("unit", unit.rawValue)
        case .taskRetrying(let task, let attempt, let delay, let reason, let exitCode):
            object.field("task", task)
            object.field("attempt", attempt)
            object.field("delay_ms", delay)
            object.field("reason", reason)
            object.field("exit_code", exitCode.map(Int64.init))
        case .taskSucceeded(let task, let attempts, let duration):
            object.field("task", task)
            object.field("attempts", attempts)
            object.field("duration_ms", duration)
        case .taskFailed(let task, let attempts, let duration, let reason, let exitCode, let allowed):
            object.field("task", task)
            object.field("attempts", attempts)
            object.field("duration_ms", duration)
            object.field("reason", reason)
            object.field("exit_code", exitCode.map(Int64.init))
            object.field("allowed", allowed)
        case .taskCancelled(let task, let reason):
            object.field("task", task)
            object.field("reason", reason)
        case .taskSkipped(let task, let reason, let run):
            object.field("task", task)
            object.field("reason", reason)
            if let run { object.field("run", run) }
        case .queueSuspended, .queueResumed:
            break
        case .workflowCleanup(let reason, let tasks):
            object.field("reason", reason)
            object.field("tasks", tasks)
        case .workflowFinished(let workflow, let status, let duration, let counts):
            object.field("workflow", workflow)
            object.field("status", status.rawValue)
            object.field("duration_ms", duration)
            object.beginObject("counts")
            object.field("succeeded", counts.succeeded)
            object.field("failed", counts.failed)
            object.field("allowed", counts.allowed)
            object.field("cancelled", counts.cancelled)
            object.field("skipped", counts.skipped)
            object.field("up_to_date", counts.upToDate)
            object.field("done_before", counts.doneBefore)
            object.end()
        }
        object.endLine(into: &buffer)
    }
}
