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
/// The loop can be busy for seconds, though: the up-to-date check hashes a task's changed large
/// input on it before the task starts (`TaskGate.skipReason`; a finished task's files are hashed
/// off it). A batch the loop has not written `backstopMilliseconds` after its
/// time is written by a backstop that looks every `backstopMilliseconds` while attached (a few
/// wake-ups a second, not two a batch), so that a flowrun killed then still leaves the lines
/// that came before; each batch is written once, by whichever comes first.
///
/// Only for a sink that writes to a regular file (`suits`): the record, and a plain log sent to
/// a file. A pipe or a terminal nobody reads would hold the loop in write(2), or waiting for the
/// sink's lock that a stalled write holds, and with it a Ctrl-C's SIGTERM to the tasks
/// (`BackPressureTests`); such a sink keeps a flush queue of its own.
///
/// - Warning: `loop`, `backstop` and `due` are guarded by `lock`.
final class LoopFlushTimer: FlushTimer, @unchecked Sendable {
    /// How late the loop may be with a batch before the backstop writes it, and how often the
    /// backstop looks.
    static let backstopMilliseconds = 200

    /// A batch's flush, run once: by the loop or by the backstop.
    private final class Flush: @unchecked Sendable {
        let deadline: Int64
        private let block: @Sendable () -> Void
        private let lock = NSLock()
        private var ran = false

        init(deadline: Int64, _ block: @escaping @Sendable () -> Void) {
            self.deadline = deadline
            self.block = block
        }

        func run() {
            guard
                lock.withLock({
                    defer { ran = true }; return !ran
                })
            else { return }
            block()
        }
    }

    private let lock = NSLock()
    private var loop: (any EngineLoop)?
    private var backstop: (any DispatchSourceTimer)?
    /// The batches set on the loop, until the backstop has looked past their time.
    private var due: [Flush] = []
    private let elsewhere = DispatchFlushTimer(label: "flowrun.flush")
    private let backstopQueue = DispatchQueue(label: "flowrun.flush-backstop")

    /// Timers set from now on fire on `loop`, until `detach()`.
    func attach(_ loop: any EngineLoop) {
        let timer = DispatchSource.makeTimerSource(queue: backstopQueue)
        let interval = DispatchTimeInterval.milliseconds(Self.backstopMilliseconds)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.writeLateBatches() }
        lock.withLock {
            self.loop = loop
            backstop = timer
        }
        timer.resume()
    }

    /// Timers set from now on fire on the queue of their own; call before the loop ends, once
    /// the sinks are finished (a timer the loop drops at its end would find nothing to write).
    func detach() {
        let timer = lock.withLock {
            defer {
                loop = nil
                backstop = nil
                due = []
            }
            return backstop
        }
        timer?.cancel()
    }

    /// Whether a sink writing to `descriptor` may flush on the loop: a regular file, which no
    /// reader can stall.
    static func suits(_ descriptor: Int32) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    func schedule(afterMilliseconds milliseconds: Int, _ block: @escaping @Sendable () -> Void) {
        let onLoop: (flush: Flush, loop: any EngineLoop)? = lock.withLock {
            guard let loop else { return nil }
            let flush = Flush(deadline: loop.now + Int64(milliseconds), block)
            due.append(flush)
            return (flush, loop)
        }
        guard let onLoop else { return elsewhere.schedule(afterMilliseconds: milliseconds, block) }
        _ = onLoop.loop.schedule(at: onLoop.flush.deadline) { onLoop.flush.run() }
    }

    /// The backstop: writes the batches the loop has not written in time (it may be busy).
    private func writeLateBatches() {
        let late: [Flush] = lock.withLock {
            guard let loop else { return [] }
            let cutoff = loop.now - Int64(Self.backstopMilliseconds)
            let late = due.filter { $0.deadline <= cutoff }
            due.removeAll { $0.deadline <= cutoff }
            return late
        }
        for flush in late { flush.run() }
    }
}
