import Dispatch
import FlowModel
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one serial event sink of a run: stamps `seq` and `time` and hands events to every sink.
///
/// The thread that emits an event hands it to the sinks itself, unless another thread is doing
/// so already: that one takes every event waiting before it stops (`drainLock` makes the sinks'
/// calls serial). No thread is woken per event. A queue of its own, woken once per batch, was
/// measured against this on 5,000 `true` tasks (bench/README.md): a wake-up and a sleep of
/// the bus thread per batch cost more CPU than the writes themselves, on the critical path of
/// a 2-core machine where the children need both cores.
///
/// - Warning: `pending`, `seq` and `finished` are guarded by `lock`; the sinks are called only
///   with `drainLock` held.
public final class EventBus: @unchecked Sendable {
    private let sinks: [any EventSink]
    private let lock = NSLock()
    private let drainLock = NSLock()
    private var pending: [RunEvent] = []
    private var seq = 0
    /// Set by `finish()`: the sinks are done (files closed), so later events are dropped.
    private var finished = false

    public init(sinks: [any EventSink]) {
        self.sinks = sinks
    }

    /// Stamps an event and hands it to the sinks; events from one thread keep their order.
    public func emit(_ kind: RunEvent.Kind) {
        let accepted: Bool = lock.withLock {
            // A signal after the end of a run (SIGUSR1, say) must not reach a closed file.
            guard !finished else { return false }
            seq += 1
            pending.append(RunEvent(seq: seq, timeMilliseconds: Self.now(), kind: kind))
            return true
        }
        if accepted { drainUnlessBusy() }
    }

    /// Drains on this thread unless another one is draining. That one may have found `pending`
    /// empty just before this event came, so whoever lets go of `drainLock` looks again.
    private func drainUnlessBusy() {
        while drainLock.try() {
            drainPending()
            drainLock.unlock()
            if lock.withLock({ pending.isEmpty }) { return }
        }
    }

    /// Hands every waiting event to the sinks, in `seq` order. Called with `drainLock` held.
    private func drainPending() {
        while true {
            var events: [RunEvent] = []
            lock.withLock { swap(&events, &pending) }
            guard !events.isEmpty else { return }
            for sink in sinks { sink.receive(events) }
        }
    }

    /// Hands over every event emitted so far, then lets each sink write its summary; events
    /// emitted after this are dropped.
    public func finish() {
        drainLock.withLock {
            lock.withLock { finished = true }
            drainPending()
            for sink in sinks { sink.finish() }
        }
    }

    /// Wall-clock milliseconds since 1970, as events carry them.
    public static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Monotonic milliseconds, for durations.
    public static func monotonicMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
