import Foundation

/// The one way an action's work learns that its attempt is to stop: the engine's cancel, a
/// timeout and a kill all `stop()` it alike (`ActionAttempt`).
///
/// Work that runs in blocks asks `isStopped` (or `throwIfStopped()`) between them; a step that
/// waits on something else (a transfer, a copy) registers `onStop` to be interrupted at once.
///
/// - Warning: `stopped` and `handler` are guarded by `lock`: `stop()` comes from the engine's
///   loop while the work runs on a thread or an event loop of its own.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var handler: (@Sendable () -> Void)?

    init() {}

    /// Sets the flag and runs the handler registered last, once; later calls do nothing.
    func stop() {
        let handler: (@Sendable () -> Void)? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            defer { self.handler = nil }
            return self.handler
        }
        handler?()
    }

    var isStopped: Bool { lock.withLock { stopped } }

    /// Throws `ActionFailure.cancelled` once `stop()` was called: work calls it between blocks.
    func throwIfStopped() throws(ActionFailure) {
        if isStopped { throw .cancelled }
    }

    /// What `stop()` does for the step under way, in place of the one before; false, and
    /// `handler` dropped, when the flag is already set.
    func onStop(_ handler: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            guard !stopped else { return false }
            self.handler = handler
            return true
        }
    }

    /// `isStopped` for C code that asks every so many rows, given `opaque` as its context (the
    /// image codec); the caller keeps the flag alive meanwhile.
    static let isStoppedForC: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = {
        Unmanaged<StopFlag>.fromOpaque($0!).takeUnretainedValue().isStopped ? 1 : 0
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}
