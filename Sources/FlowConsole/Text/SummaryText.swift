import FlowModel

/// The last line of a run, shared by the plain log and the live view:
/// `workflow upgrade failed in 3.4s: 3 succeeded, 1 failed, 1 skipped`.
package enum SummaryText {
    static func finished(workflow: String, status: RunStatus, durationMilliseconds: Int64, counts: FinalCounts) -> String {
        "workflow \(ConsoleText.sanitized(workflow)) \(status.rawValue) in \(DurationText.string(milliseconds: durationMilliseconds)): \(self.counts(counts))"
    }

    /// The non-zero counts, in the order succeeded, failed, cancelled, up to date, skipped (the
    /// other skips); `no tasks` if none. As the events count them and as GitHub Actions shows a
    /// `continue-on-error` step: an allowed failure (`continue_on_error`) is a failure, marked
    /// `2 failed (1 allowed)`; the run's status says whether it failed the run.
    static func counts(_ counts: FinalCounts) -> String {
        let parts = [
            (counts.succeeded, "succeeded"), (counts.failed, failed(counts)), (counts.cancelled, "cancelled"),
            (counts.upToDate, "up to date"), (counts.doneBefore, "done before"),
            (counts.skipped - counts.upToDate - counts.doneBefore, "skipped"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return parts.isEmpty ? "no tasks" : parts.joined(separator: ", ")
    }

    /// `failed`, or `failed (1 allowed)` when some of the failures were allowed.
    private static func failed(_ counts: FinalCounts) -> String {
        counts.allowed > 0 ? "failed (\(counts.allowed) allowed)" : "failed"
    }

    /// A FAILED cell of `flowrun runs`: `2`, or `2 (1 allowed)`.
    package static func failedCell(_ counts: FinalCounts) -> String {
        counts.allowed > 0 ? "\(counts.failed) (\(counts.allowed) allowed)" : "\(counts.failed)"
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
