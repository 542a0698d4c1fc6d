import FlowModel

/// A task's end in a past run, as its record tells it.
package struct RecordedTask: Sendable, Equatable {
    package enum State: Sendable, Equatable {
        case succeeded
        case failed(reason: String)
        case cancelled(reason: String)
        case skipped(reason: String)
        /// The record shows no end: the run was killed while the task ran or waited.
        case unfinished

        init?(_ kind: RunEvent.Kind) {
            switch kind {
            case .taskSucceeded: self = .succeeded
            case .taskFailed(_, _, _, let reason, _, _): self = .failed(reason: reason)
            case .taskCancelled(_, let reason): self = .cancelled(reason: reason)
            case .taskSkipped(_, let reason, _): self = .skipped(reason: reason)
            default: return nil
            }
        }
    }

    package var state: State
    /// The fingerprint recorded in the plan for the task, if any (see `RecordHeader.PlanEntry`).
    package var fingerprint: String?

    package init(state: State, fingerprint: String?) {
        self.state = state
        self.fingerprint = fingerprint
    }
}
