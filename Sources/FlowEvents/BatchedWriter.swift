import Dispatch
import FlowModel
import Foundation

/// Holds what a sink writes and hands it to a `DescriptorWriter` in batches: once `maxBytes`
/// are held, `intervalMilliseconds` after the first byte held came, and at `flush()`.
///
/// A run of small tasks makes a few events a task, and the bus hands them over a step at a
/// time: written as they came, that is one `write(2)` per step and per sink, a third of the
/// system calls of a `true` task. Held for a moment, they go out a few dozen times a second.
/// Each write is still whole lines (what a sink appends is), so a reader of the file or pipe
/// never sees half of one, and a run killed at any moment leaves the lines of every write
/// before the kill: at most the last interval is lost.
///
/// Writes keep their order: a batch is written under the lock that appends to it. The first
/// failed write is kept by the `DescriptorWriter` (and told to its `onFailure`), and nothing is
/// held or written after it.
///
/// - Warning: `pending`, `timerArmed` and `closed` are guarded by `lock`, and every write is
///   made under it; the timer's flush may come from its own thread while a sink appends.
package final class BatchedWriter: ByteSink, @unchecked Sendable {
    /// Held bytes past this are written at once.
    package static let maxBytes = 64 << 10
    /// How long the first line held waits, at most, for others (`--events plain` in a CI log).
    package static let defaultIntervalMilliseconds = 50

    package let writer: DescriptorWriter
    private let intervalMilliseconds: Int
    private let timer: any FlushTimer
    private let lock = NSLock()
    private var pending: [UInt8] = []
    private var timerArmed = false
    /// Set by `finish()`: later appends are dropped, and a timer that fires finds nothing.
    private var closed = false

    package init(
        _ writer: DescriptorWriter, intervalMilliseconds: Int = BatchedWriter.defaultIntervalMilliseconds,
        timer: (any FlushTimer)? = nil
    ) {
        self.writer = writer
        self.intervalMilliseconds = intervalMilliseconds
        self.timer = timer ?? DispatchFlushTimer(label: "flowrun.flush")
    }

    /// The first write that failed, if one did.
    package var failure: WriteFailure? { writer.failure }

    /// Holds `bytes` (whole lines) for the next batch; writes the batch if it is now
    /// `maxBytes` or more.
    package func write(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        lock.lock()
        defer { lock.unlock() }
        guard !closed, writer.failure == nil else { return }
        pending.append(contentsOf: bytes)
        if pending.count >= Self.maxBytes {
            writePending()
        } else if !timerArmed {
            timerArmed = true
            timer.schedule(afterMilliseconds: intervalMilliseconds) { [weak self] in self?.timerFired() }
        }
    }

    /// Writes what is held now.
    package func flush() {
        lock.withLock { writePending() }
    }

    /// Writes what is held, then drops whatever comes later: for a sink's `finish()`, before
    /// its descriptor is closed or written to by others.
    package func finish() {
        lock.withLock {
            writePending()
            closed = true
        }
    }

    private func timerFired() {
        lock.withLock {
            timerArmed = false
            writePending()
        }
    }

    /// Called with `lock` held.
    private func writePending() {
        guard !pending.isEmpty else { return }
        writer.write(pending)
        pending.removeAll(keepingCapacity: true)
        // A large batch (a flood of output) would otherwise keep its memory for the whole run.
        if pending.capacity > 4 * Self.maxBytes { pending = [] }
    }
}

/// Runs a block once, some milliseconds from now: the clock of a `BatchedWriter`, which tests
/// replace with one they fire by hand.
package protocol FlushTimer: Sendable {
    func schedule(afterMilliseconds: Int, _ block: @escaping @Sendable () -> Void)
}

/// A `FlushTimer` on a serial queue of its own: a flush that waits on a stalled reader holds up
/// no other output's flush.
package struct DispatchFlushTimer: FlushTimer {
    private let queue: DispatchQueue

    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    package func schedule(afterMilliseconds: Int, _ block: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + .milliseconds(afterMilliseconds), execute: block)
    }
}
