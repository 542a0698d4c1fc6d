import Foundation

/// The threads an extraction runs beside the extracting one (decode, read ahead, hash): each
/// does its work, then marks itself ended under its owner's condition and wakes whoever waits.
enum WorkerThread {
    static func start(
        named name: String, condition: NSCondition, work: @escaping @Sendable () -> Void, ended: @escaping @Sendable () -> Void
    ) {
        let thread = Thread {
            work()
            condition.withLock {
                ended()
                condition.broadcast()
            }
        }
        thread.name = name
        thread.start()
    }
}
