import FlowModel
import Foundation

/// An `EventSink` that keeps every event it is handed, for tests that assert from the stream.
///
/// - Warning: `stored` and `finished` are guarded by `lock`: a real bus may hand events over on
///   its own queue while a test reads them.
package final class InMemoryEventSink: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [RunEvent] = []
    private var finished = false

    package init() {}

    package func receive(_ event: RunEvent) {
        lock.withLock { stored.append(event) }
    }

    package func finish() {
        lock.withLock { finished = true }
    }

    /// Every event received, in the order received.
    package var events: [RunEvent] { lock.withLock { stored } }
    package var kinds: [RunEvent.Kind] { events.map(\.kind) }
    /// Whether the bus has finished with this sink.
    package var isFinished: Bool { lock.withLock { finished } }
}
