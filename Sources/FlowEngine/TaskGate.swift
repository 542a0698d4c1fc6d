/// Decides, when a task is ready to start, whether it needs to run at all: the up-to-date check.
///
/// The engine asks when a task's needs have ended and its slot is free, since a need may make
/// its inputs, and reports each success so the gate can remember it. A skipped task ends
/// `task.skipped` with the gate's reason and counts as a success for its dependents.
///
/// Implementation requirements: both are called under the engine's lock on its loop, one at a
/// time, and in the order tasks end; keep them short (a stat per file), and hash off the loop
/// a changed file of a task about to start (`check(_:decided:)`) and a finished task's files
/// (`taskSucceeded(_:recorded:)`).
package protocol TaskGate: Sendable {
    /// The reason to skip `task` (its index in the plan), or nil to run it.
    func skipReason(for task: Int) -> String?
    /// `skipReason(for:)` for a task about to start, which the gate may finish off the loop
    /// (a changed input to hash): `.later` then, and it calls `decided` (from any thread) with
    /// the reason once it has one. The engine holds the task's slot until then.
    func check(_ task: Int, decided: @escaping @Sendable (String?) -> Void) -> CheckAnswer
    func taskSucceeded(_ task: Int)
    /// `taskSucceeded` for a task that ran, whose files the gate may hash off the loop: it
    /// returns true if it does, and then calls `recorded` (from any thread) once it is done;
    /// false if it did all now, and does not call `recorded`. The engine holds the task's end
    /// (its success event, its slot, its dependents' start) until then: a dependent's check
    /// takes its need's fingerprint and outputs' digests as the success left them.
    func taskSucceeded(_ task: Int, recorded: @escaping @Sendable () -> Void) -> Bool
    /// The run whose successes `SkipReason.doneBefore` keeps (`--resume`), if any.
    var resumedRun: String? { get }
    /// The run is being cancelled: a check under way (a walk of a large tree) gives up soon and
    /// returns nil, keeping nothing of what it found. Called from any thread, outside the lock,
    /// before the cancel waits for it; later checks give up at once.
    func stopChecks()
}

/// What a gate answers for a task about to start (`TaskGate.check(_:decided:)`).
package enum CheckAnswer: Sendable, Equatable {
    /// Decided now: the reason to skip the task, or nil to run it.
    case now(String?)
    /// Decided off the loop: the gate calls `decided` once it is.
    case later
}

extension TaskGate {
    package func check(_ task: Int, decided: @escaping @Sendable (String?) -> Void) -> CheckAnswer {
        .now(skipReason(for: task))
    }
    package func taskSucceeded(_ task: Int, recorded: @escaping @Sendable () -> Void) -> Bool {
        taskSucceeded(task)
        return false
    }
    package var resumedRun: String? { nil }
    package func stopChecks() {}
}
