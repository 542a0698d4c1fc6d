import FlowModel

/// What `--resume` does with a task, and why: what `--resume --dry-run` shows (`ResumeCheck.preview`).
package enum ResumeDecision: Sendable, Equatable {
    /// Kept: its inputs and outputs are as at its last success (the up-to-date check).
    case upToDate
    /// Kept: it succeeded in the run resumed, and neither it nor what it left changed since.
    case doneBefore
    case runs(Why)

    package enum Why: Sendable, Equatable {
        /// The run resumed has no end for it: a new task, or one that run did not select.
        case notInRun
        /// It did not succeed in the run resumed: how it ended there.
        case ended(RecordedTask.State)
        /// It succeeded, but what it left was not recorded: an output was missing then, or an
        /// input changed while it ran.
        case notRecorded
        /// A task it needs runs, so it runs too.
        case needRuns(TaskID)
        /// Its fingerprint or its outputs are not those recorded. The record keeps them as one
        /// digest: what changed is told only when the up-to-date check's record is the same
        /// success and so can tell it (or an output is missing now); nil otherwise.
        case changed(RunReason?)
    }
}
