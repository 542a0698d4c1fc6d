import FlowEngine
import FlowEvents
import Foundation

/// The sinks' flush timer (`BatchedWriter`) on the run's loop while the run goes on, and on a
/// queue of its own before and after.
///
/// On a dispatch queue, each batch's 50 ms timer woke libdispatch's timer thread to arm it and
/// a worker to fire it, for the plain log and the record each, 20 times a second: on a graph of
/// small tasks about 0.2 context switches a task, on the two cores the children need (issue 23,
/// the dag row). On the loop, a batch is written at the end of whichever turn comes after its
/// time, by the thread that is awake anyway; an idle loop waits in `epoll_wait` until then.
///
/// Only for a sink that writes to a regular file (`suits`): the record, and a plain log sent to
/// a file. A pipe or a terminal nobody reads would hold the loop in write(2), or waiting for the
/// sink's lock that a stalled write holds, and with it a Ctrl-C's SIGTERM to the tasks
/// (`BackPressureTests`); such a sink keeps a flush queue of its own.
///
/// - Warning: `loop` is guarded by `lock`.
final class LoopFlushTimer: FlushTimer, @unchecked Sendable {
    private let lock = NSLock()
    private var loop: (any EngineLoop)?
    private let elsewhere = DispatchFlushTimer(label: "flowrun.flush")

    /// Timers set from now on fire on `loop`, until `detach()`.
    func attach(_ loop: any EngineLoop) {
        lock.withLock { self.loop = loop }
    }

    /// Timers set from now on fire on the queue of their own; call before the loop ends, once
    /// the sinks are finished (a timer the loop drops at its end would find nothing to write).
    func detach() {
        lock.withLock { loop = nil }
    }

    /// Whether a sink writing to `descriptor` may flush on the loop: a regular file, which no
    /// reader can stall.
    static func suits(_ descriptor: Int32) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    func schedule(afterMilliseconds milliseconds: Int, _ block: @escaping @Sendable () -> Void) {
        guard let loop = lock.withLock({ loop }) else { return elsewhere.schedule(afterMilliseconds: milliseconds, block) }
        _ = loop.schedule(at: loop.now + Int64(milliseconds), block)
    }
}
