import FlowModel

/// One line of `flowrun runs`: how a past run ended, and its counts.
package struct RunSummary: Sendable, Equatable {
    /// How the run ended; `interrupted` when its record has no end (flowrun was killed, or the
    /// machine went down), and then the counts are those of the tasks that ended; `running`
    /// when it has no end yet because a flowrun is still writing it (`RecordedRuns.isRunning`).
    package enum Result: String, Sendable {
        case succeeded, failed, cancelled, interrupted, running
    }

    package var result = Result.interrupted
    /// When the run ended, or, for an interrupted one, the time of its last event.
    package var endedMilliseconds: Int64
    package var counts = FinalCounts()

    package init(endedMilliseconds: Int64) {
        self.endedMilliseconds = endedMilliseconds
    }

    mutating func add(_ event: RunEvent) {
        endedMilliseconds = max(endedMilliseconds, event.timeMilliseconds)
        switch event.kind {
        case .taskSucceeded: counts.succeeded += 1
        case .taskFailed(_, _, _, _, _, let allowed):
            counts.failed += 1
            if allowed { counts.allowed += 1 }
        case .taskCancelled: counts.cancelled += 1
        case .taskSkipped(_, let reason, _):
            counts.skipped += 1
            if reason == SkipReason.upToDate { counts.upToDate += 1 }
            if reason == SkipReason.doneBefore { counts.doneBefore += 1 }
        case .workflowFinished(_, let status, _, let finalCounts):
            counts = finalCounts
            result = Result(rawValue: status.rawValue) ?? .interrupted
        default: break
        }
    }
}
