import FlowModel

/// The last line of a run, shared by the plain log and the live view:
/// `workflow upgrade failed in 3.4s: 3 succeeded, 1 failed, 1 skipped`.
package enum SummaryText {
    static func finished(workflow: String, status: RunStatus, durationMilliseconds: Int64, counts: FinalCounts) -> String {
        "workflow \(ConsoleText.sanitized(workflow)) \(status.rawValue) in \(DurationText.string(milliseconds: durationMilliseconds)): \(self.counts(counts))"
    }

    /// The non-zero counts, in the order succeeded, failed, allowed failures, cancelled, up to
    /// date, skipped (the other skips); `no tasks` if none. An allowed failure
    /// (`continue_on_error`) is never said to have failed (`1 failed, 2 allowed failures`): the
    /// run did not fail because of it. The events' `failed` counts it; their `allowed` says so.
    package static func counts(_ counts: FinalCounts) -> String {
        let parts = [
            (counts.succeeded, "succeeded"), (counts.failed - counts.allowed, "failed"), (counts.allowed, allowedFailures(counts.allowed)),
            (counts.cancelled, "cancelled"), (counts.upToDate, "up to date"), (counts.doneBefore, "done before"),
            (counts.skipped - counts.upToDate - counts.doneBefore, "skipped"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return parts.isEmpty ? "no tasks" : parts.joined(separator: ", ")
    }

    /// `allowed failure` or `allowed failures`, after a count.
    package static func allowedFailures(_ count: Int) -> String {
        count == 1 ? "allowed failure" : "allowed failures"
    }

    /// The first line: `workflow upgrade: 5 tasks, concurrency 2`.
    static func started(workflow: String, tasks: Int, concurrency: Int) -> String {
        "workflow \(ConsoleText.sanitized(workflow)): \(self.tasks(tasks)), concurrency \(concurrency)"
    }

    /// `12 tasks up to date`: the one line that stands for the tasks skipped as up to date.
    static func upToDate(_ count: Int) -> String {
        "\(tasks(count)) up to date"
    }

    /// `5 tasks done before (run 20261125-030512-123)`: the one line that stands for the tasks
    /// `--resume` kept from an earlier run.
    static func doneBefore(_ count: Int, run: String?) -> String {
        "\(tasks(count)) done before\(run.map { " (run \(ConsoleText.sanitized($0)))" } ?? "")"
    }

    /// `1 task`, `5 tasks`.
    static func tasks(_ count: Int) -> String {
        count.counted("task")
    }
}
