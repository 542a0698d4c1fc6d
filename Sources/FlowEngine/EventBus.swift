import Dispatch
import FlowModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one serial event sink of a run: stamps `seq` and `time` and hands each event to every sink.
///
/// - Warning: `seq` is touched only on `queue`; that is what makes the class safe to share.
public final class EventBus: @unchecked Sendable {
    private let queue = DispatchQueue(label: "flowrun.events")
    private let sinks: [any EventSink]
    private var seq = 0

    public init(sinks: [any EventSink]) {
        self.sinks = sinks
    }

    /// Queues an event; events from one thread keep their order.
    public func emit(_ kind: RunEvent.Kind) {
        queue.async { [self] in
            seq += 1
            let event = RunEvent(seq: seq, timeMilliseconds: Self.now(), kind: kind)
            for sink in sinks { sink.receive(event) }
        }
    }

    /// Waits for every queued event, then lets each sink write its summary.
    public func finish() {
        queue.sync {
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
