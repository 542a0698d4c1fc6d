import FlowEngine
import Foundation

/// A `TaskQueue` of a `ManualRunLoop`: an added operation starts as a block posted to the loop,
/// as an `OperationQueue` starts it on a real loop's thread; a suspended queue holds its
/// operations until it is resumed. It does not hold back an operation over `limit`, as an
/// `OperationQueue` would: the engine's scheduler must keep to it, and `peakInFlight` tells a
/// test whether it did.
///
/// - Warning: for one test thread, with its loop.
package final class ManualTaskQueue: TaskQueue, @unchecked Sendable {
    package let name: String
    package let limit: Int
    private let loop: ManualRunLoop
    private var held: [Operation] = []
    private var started: [Operation] = []
    /// The most operations started and not finished at once, seen as each was started.
    package private(set) var peakInFlight = 0

    init(name: String, limit: Int, loop: ManualRunLoop) {
        self.name = name
        self.limit = limit
        self.loop = loop
    }

    package var isSuspended = false {
        didSet { if !isSuspended { startHeld() } }
    }

    package func addOperation(_ operation: Operation) {
        held.append(operation)
        if !isSuspended { startHeld() }
    }

    private func startHeld() {
        let operations = held
        held = []
        for operation in operations {
            loop.post { [self] in
                started.removeAll(where: \.isFinished)
                started.append(operation)
                peakInFlight = max(peakInFlight, started.count)
                operation.start()
            }
        }
    }
}
