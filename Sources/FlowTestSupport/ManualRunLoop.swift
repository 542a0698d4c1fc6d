import FlowEngine

/// An `EngineLoop` whose clock moves only when a test says so: `advance(by:)` fires the timers
/// that come due, in order, on the calling thread, so a test of timeouts and grace periods
/// runs in microseconds and does not depend on how fast the machine is. Its queues
/// (`ManualTaskQueue`) start operations as posted blocks, so a whole `Engine` run is driven
/// from the test's thread.
///
/// - Warning: for one test thread; blocks posted from elsewhere must not race `advance`.
package final class ManualRunLoop: EngineLoop, @unchecked Sendable {
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

    /// A queue that starts its operations on this loop, when the test runs it.
    package func makeQueue(name: String, limit: Int) -> any TaskQueue {
        let queue = ManualTaskQueue(name: name, limit: limit, loop: self)
        queues.append(queue)
        return queue
    }

    /// The queues made so far, in order: for an engine, the default queue, then the named ones.
    package private(set) var queues: [ManualTaskQueue] = []

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
