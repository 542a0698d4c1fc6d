import FlowEngine
import Foundation

/// An `EngineLoop` whose clock moves only when a test says so: `advance(by:)` fires the timers
/// that come due, in order, on the calling thread, so a test of timeouts and grace periods
/// runs in microseconds and does not depend on how fast the machine is. Its queues
/// (`ManualTaskQueue`) start operations as posted blocks, so a whole `Engine` run is driven
/// from the test's thread.
///
/// Driven from one test thread; an action's threads may read `now`, post and set or cancel
/// timers meanwhile (a transfer's progress, a child's output grace), under the lock.
package final class ManualRunLoop: EngineLoop, @unchecked Sendable {
    private let lock = NSLock()
    private var clock: Int64
    private var posted: [@Sendable () -> Void] = []
    private var timers: [(deadline: Int64, id: UInt64, block: @Sendable () -> Void)] = []
    private var lastID: UInt64 = 0

    package init(now: Int64 = 0) {
        clock = now
    }

    package var now: Int64 { lock.withLock { clock } }

    package func post(_ block: @escaping @Sendable () -> Void) {
        lock.withLock { posted.append(block) }
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
        lock.withLock {
            lastID += 1
            timers.append((deadline, lastID, block))
            return LoopTimer(id: lastID)
        }
    }

    package func cancel(_ timer: LoopTimer) {
        lock.withLock { timers.removeAll { $0.id == timer.id } }
    }

    /// The deadlines of the timers still armed, earliest first.
    package var armedDeadlines: [Int64] { lock.withLock { timers.map(\.deadline).sorted() } }

    /// Runs the posted blocks, and those they post (each outside the lock).
    package func runPosted() {
        while let block = lock.withLock({ posted.isEmpty ? nil : posted.removeFirst() }) { block() }
    }

    /// Moves the clock on by `milliseconds`, stopping at each timer due on the way to fire it
    /// (earliest first, then in the order they were set), with the posted blocks run first.
    package func advance(by milliseconds: Int64) {
        let target = now + milliseconds
        runPosted()
        while let next = nextTimer(dueBy: target) {
            next()
            runPosted()
        }
        lock.withLock { clock = target }
    }

    /// The earliest timer due by `target`, taken off the list with the clock moved to it.
    private func nextTimer(dueBy target: Int64) -> (@Sendable () -> Void)? {
        lock.withLock {
            guard let next = timers.filter({ $0.deadline <= target }).min(by: { ($0.deadline, $0.id) < ($1.deadline, $1.id) }) else { return nil }
            timers.removeAll { $0.id == next.id }
            clock = max(clock, next.deadline)
            return next.block
        }
    }
}
