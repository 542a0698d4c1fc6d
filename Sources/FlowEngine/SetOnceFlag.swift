import Foundation

/// A flag set once, read without the engine's lock: the signal thread asks whether a cancel was
/// requested or the run is over while a gate's check (a long walk) holds that lock.
final class SetOnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() {
        lock.withLock { value = true }
    }

    var isSet: Bool { lock.withLock { value } }
}
