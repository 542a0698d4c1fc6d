import Dispatch
import Foundation

/// Where the engine hands the operation of a task the scheduler has started: one per queue of
/// the workflow. It only executes, and carries suspension; the scheduler has already decided
/// order and limits (ARCHITECTURE.md, trap 1).
///
/// A run's `EngineLoop` makes its queues (`EngineLoop.makeQueue`): a real loop an
/// `OperationQueue` that starts operations on the loop's thread, a test's manual loop one that
/// starts them when the test runs the loop.
///
/// Implementation requirements: start an added operation on the loop, never inside
/// `addOperation` (the engine adds under its lock, and a start can end a task at once); start
/// none while suspended, and those held back once no longer suspended.
package protocol TaskQueue: AnyObject, Sendable {
    func addOperation(_ operation: Operation)
    var isSuspended: Bool { get set }
}

extension OperationQueue: TaskQueue {
    /// A queue whose operations start on `queue`, the loop's serial queue, at most `limit` at once.
    package static func starting(on queue: DispatchQueue, name: String, limit: Int) -> OperationQueue {
        let operations = OperationQueue()
        operations.name = "flowrun.queue.\(name)"
        operations.maxConcurrentOperationCount = limit
        // Serial is enough: an operation's `start` only begins an attempt and returns; the
        // limit counts operations until they finish.
        operations.underlyingQueue = queue
        return operations
    }
}
