import Dispatch
import NIOConcurrencyHelpers

/// Passes on at most one progress report per `interval` (10 a second), plus the one that
/// completes the total, and none once the attempt has ended.
final class ProgressThrottle: Sendable {
    private struct State {
        var lastSent: UInt64?
        var ended = false
    }

    private let state = NIOLockedValueBox(State())
    private let intervalNanoseconds: UInt64
    private let send: @Sendable (Int64, Int64?) -> Void

    init(intervalNanoseconds: UInt64 = 100_000_000, send: @escaping @Sendable (Int64, Int64?) -> Void) {
        self.intervalNanoseconds = intervalNanoseconds
        self.send = send
    }

    func report(_ done: Int64, _ total: Int64?) {
        let now = DispatchTime.now().uptimeNanoseconds
        // Sent under the lock, so that once `end()` returns no report follows.
        state.withLockedValue { state in
            guard !state.ended else { return }
            if let last = state.lastSent, now - last < intervalNanoseconds, done != total { return }
            state.lastSent = now
            send(done, total)
        }
    }

    func end() {
        state.withLockedValue { $0.ended = true }
    }
}
