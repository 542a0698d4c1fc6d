import FlowEngine
import FlowModel
import NIOConcurrencyHelpers

/// Passes on an action's progress at most once per `interval` on the engine's clock (at most
/// ten a second), so that a fast transfer or extraction does not flood the events.
///
/// The first report goes out at once, and so does one that completes its total; a report held
/// back is kept and sent once the interval has passed, by a timer on the engine's loop if no
/// later report comes first (a transfer that stalls after a burst shows the bytes it got, not
/// those of the report before the burst), and the last one held is sent when the attempt
/// succeeds (`end(completed:)`), so the final value is always seen. A report equal to the one
/// sent last is dropped; none goes out once the attempt has ended.
final class ProgressThrottle: Sendable {
    private struct State {
        var lastSent: (at: Int64, done: Int64, total: Int64?)?
        var held: (done: Int64, total: Int64?)?
        /// The timer that sends `held` when its interval is over.
        var flush: LoopTimer?
        var ended = false
    }

    /// The limit is ten progress events a second per task. The report that completes
    /// the total goes out at once, however soon after the last, so the others are spaced for
    /// nine a second (112 ms): no second then holds more than ten.
    static let defaultIntervalMilliseconds: Int64 = 112

    private let state = NIOLockedValueBox(State())
    private let intervalMilliseconds: Int64
    private let clock: any EngineLoop
    private let unit: ProgressUnit
    private let send: @Sendable (Int64, Int64?, ProgressUnit) -> Void

    /// - Parameter clock: the run's loop, whose `now` (milliseconds) times the reports.
    init(
        clock: any EngineLoop, unit: ProgressUnit = .bytes, intervalMilliseconds: Int64 = defaultIntervalMilliseconds,
        send: @escaping @Sendable (Int64, Int64?, ProgressUnit) -> Void
    ) {
        self.clock = clock
        self.unit = unit
        self.intervalMilliseconds = intervalMilliseconds
        self.send = send
    }

    /// From any thread: `done` of `total` (nil when unknown).
    func report(_ done: Int64, _ total: Int64?) {
        let now = clock.now
        // Sent under the lock, so that reports go out in order and none follows `end`.
        state.withLockedValue { state in
            guard !state.ended else { return }
            if let last = state.lastSent {
                if last.done == done && last.total == total { return }
                if now - last.at < intervalMilliseconds && done != total {
                    state.held = (done, total)
                    if state.flush == nil {
                        state.flush = clock.schedule(at: last.at + intervalMilliseconds) { [weak self] in self?.sendHeld() }
                    }
                    return
                }
            }
            sendNow(done, total, at: now, state: &state)
        }
    }

    /// The report held back, once its interval is over and no later report has sent one.
    private func sendHeld() {
        let now = clock.now
        state.withLockedValue { state in
            state.flush = nil
            guard !state.ended, let held = state.held else { return }
            sendNow(held.done, held.total, at: now, state: &state)
        }
    }

    private func sendNow(_ done: Int64, _ total: Int64?, at now: Int64, state: inout State) {
        if let flush = state.flush.take() { clock.cancel(flush) }
        state.lastSent = (now, done, total)
        state.held = nil
        send(done, total, unit)
    }

    /// No report goes out after this; the one held back is sent first if the attempt `completed`.
    func end(completed: Bool) {
        state.withLockedValue { state in
            guard !state.ended else { return }
            state.ended = true
            if let flush = state.flush.take() { clock.cancel(flush) }
            if completed, let held = state.held { send(held.done, held.total, unit) }
        }
    }
}
