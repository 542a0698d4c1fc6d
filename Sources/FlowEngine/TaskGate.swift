/// Decides, when a task is ready to start, whether it needs to run at all: the up-to-date check.
///
/// The engine asks when a task's needs have ended and its slot is free, since a need may make
/// its inputs, and reports each success so the gate can remember it. A skipped task ends
/// `task.skipped` with the gate's reason and counts as a success for its dependents.
///
/// Implementation requirements: both are called under the engine's lock on its loop, one at a
/// time, and in the order tasks end; keep them short (a stat per file, hashing only what changed).
package protocol TaskGate: Sendable {
    /// The reason to skip `task` (its index in the plan), or nil to run it.
    func skipReason(for task: Int) -> String?
    func taskSucceeded(_ task: Int)
    /// The run whose successes `SkipReason.doneBefore` keeps (`--resume`), if any.
    var resumedRun: String? { get }
    /// The run is being cancelled: a check under way (a walk of a large tree) gives up soon and
    /// returns nil, keeping nothing of what it found. Called from any thread, outside the lock,
    /// before the cancel waits for it; later checks give up at once.
    func stopChecks()
}

extension TaskGate {
    package var resumedRun: String? { nil }
    package func stopChecks() {}
}
