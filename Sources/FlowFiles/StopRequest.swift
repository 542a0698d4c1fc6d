import Foundation

/// A request to stop long file work (the up-to-date check's walks and hashes), made from another
/// thread (the signal thread's cancel) while the work goes on; the work asks between steps.
/// Once made it stays made.
package final class StopRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var requested = false

    package init() {}

    package func request() {
        lock.withLock { requested = true }
    }

    package var isRequested: Bool { lock.withLock { requested } }
}
