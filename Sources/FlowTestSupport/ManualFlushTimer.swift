import FlowEvents
import Foundation

/// A `FlushTimer` that fires only when a test says so (`fire()`), so that what a batched sink
/// holds and when it writes it are checked without waiting on a clock.
///
/// - Warning: `waiting` is guarded by `lock`.
package final class ManualFlushTimer: FlushTimer, @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [@Sendable () -> Void] = []

    package init() {}

    package func schedule(afterMilliseconds: Int, _ block: @escaping @Sendable () -> Void) {
        lock.withLock { waiting.append(block) }
    }

    /// How many flushes are waiting for their time.
    package var armed: Int { lock.withLock { waiting.count } }

    /// Runs every flush waiting, as if its time had come.
    package func fire() {
        let due: [@Sendable () -> Void] = lock.withLock {
            defer { waiting = [] }
            return waiting
        }
        for block in due { block() }
    }
}
