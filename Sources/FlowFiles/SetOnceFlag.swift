import Foundation

/// A flag set once from one thread and read from others without any other lock: a request to
/// stop long file work (the up-to-date check's walks and hashes ask between steps), and the
/// engine's "a cancel was requested" and "the run is over", which the signal thread reads while
/// a gate's check holds the engine's lock. Once set it stays set.
package final class SetOnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    package init() {}

    package func set() {
        lock.withLock { value = true }
    }

    package var isSet: Bool { lock.withLock { value } }
}
