import Dispatch
import FlowEngine

/// An `EngineLoop` whose clock moves only when a test says so: `advance(by:)` fires the timers
/// that come due, in order, on the calling thread, so a test of timeouts and grace periods
/// runs in microseconds and does not depend on how fast the machine is.
///
/// - Warning: for one test thread; blocks posted from elsewhere must not race `advance`.
package final class ManualRunLoop: EngineLoop, @unchecked Sendable {
    /// Not run by the loop: operations are started by hand in tests that use it.
    package let queue = DispatchQueue(label: "flowrun.manual-loop")
    package private(set) var now: Int64
    private var posted: [@Sendable () -> Void] = []
    private var timers: [(deadline: Int64, id: UInt64, block: @Sendable () -> Void)] = []
    private var lastID: UInt64 = 0

    package init(now: Int64 = 0) {
        self.now = now
    }

    package func post(_ block: @escaping @Sendable () -> Void) {
        posted.append(block)
    }

    package func nudge() {}

    package func schedule(at deadline: Int64, _ block: @escaping @Sendable () -> Void) -> LoopTimer {
        lastID += 1
        timers.append((deadline, lastID, block))
        return LoopTimer(id: lastID)
    }

    package func cancel(_ timer: LoopTimer) {
        timers.removeAll { $0.id == timer.id }
    }

    /// The deadlines of the timers still armed, earliest first.
    package var armedDeadlines: [Int64] { timers.map(\.deadline).sorted() }

    /// Runs the posted blocks, and those they post.
    package func runPosted() {
        while !posted.isEmpty { posted.removeFirst()() }
    }

    /// Moves the clock on by `milliseconds`, stopping at each timer due on the way to fire it
    /// (earliest first, then in the order they were set), with the posted blocks run first.
    package func advance(by milliseconds: Int64) {
        let target = now + milliseconds
        runPosted()
        while let next = timers.filter({ $0.deadline <= target }).min(by: { ($0.deadline, $0.id) < ($1.deadline, $1.id) }) {
            timers.removeAll { $0.id == next.id }
            now = max(now, next.deadline)
            next.block()
            runPosted()
        }
        now = target
    }
}
