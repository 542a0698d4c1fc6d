import Dispatch
import Foundation

/// An `EngineLoop` on a plain serial dispatch queue, for runners with no events of their own to
/// wait for (`NoopRunner`, which measures the engine alone). The shell runner's loop is the
/// epoll one in FlowActions.
///
/// - Warning: `timers` and `nextTimer` are guarded by `lock`.
package final class SerialQueueLoop: EngineLoop, @unchecked Sendable {
    package let queue: DispatchQueue
    private let lock = NSLock()
    private var timers: [UInt64: DispatchWorkItem] = [:]
    private var nextTimer: UInt64 = 0

    package init(label: String = "flowrun.loop") {
        queue = DispatchQueue(label: label)
    }

    package var now: Int64 { EventBus.monotonicMilliseconds() }

    package func makeQueue(name: String, limit: Int) -> any TaskQueue {
        OperationQueue.starting(on: queue, name: name, limit: limit)
    }

    package func post(_ block: @escaping @Sendable () -> Void) {
        queue.async(execute: block)
    }

    package func nudge() {}

    package func schedule(at deadline: Int64, _ block: @escaping @Sendable () -> Void) -> LoopTimer {
        let timer: LoopTimer = lock.withLock {
            nextTimer += 1
            return LoopTimer(id: nextTimer)
        }
        let work = DispatchWorkItem { [self] in
            guard lock.withLock({ timers.removeValue(forKey: timer.id) }) != nil else { return }
            block()
        }
        lock.withLock { timers[timer.id] = work }
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(max(0, deadline - now))), execute: work)
        return timer
    }

    package func cancel(_ timer: LoopTimer) {
        lock.withLock { timers.removeValue(forKey: timer.id) }?.cancel()
    }
}
