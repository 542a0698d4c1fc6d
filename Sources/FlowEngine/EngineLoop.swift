import Dispatch

/// The engine's run loop: operations start on it, attempts report their ends on it, timers fire
/// on it, and each task's `AttemptMachine` is driven on it, so none of them needs a lock.
///
/// The rule every action runner obeys: never block the loop. A runner starts its work and
/// returns; whatever waits (a process, a transfer) reports back through the loop.
package protocol EngineLoop: AnyObject, Sendable {
    /// A queue of the run (`TaskQueue`) whose operations start on the loop, at most `limit`
    /// at once: so that a task's end, the engine's step and the next start follow one another
    /// on one thread.
    func makeQueue(name: String, limit: Int) -> any TaskQueue

    /// Milliseconds on the loop's monotonic clock: the time timers are set in.
    var now: Int64 { get }

    /// Runs `block` on the loop soon.
    func post(_ block: @escaping @Sendable () -> Void)

    /// Called after blocks were put on `queue` from elsewhere (operations added): a loop busy
    /// waiting for its own events must look at its queue.
    func nudge()

    /// Runs `block` on the loop once `now` reaches `deadline`, unless cancelled first.
    func schedule(at deadline: Int64, _ block: @escaping @Sendable () -> Void) -> LoopTimer

    /// Forgets a timer; nothing happens if it has fired already.
    func cancel(_ timer: LoopTimer)
}

/// A timer set on an `EngineLoop`.
package struct LoopTimer: Hashable, Sendable {
    package let id: UInt64

    package init(id: UInt64) { self.id = id }
}
