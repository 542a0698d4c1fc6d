import Dispatch
import FlowModel
import Foundation
import Glibc

/// The one serial event sink of a run: stamps `seq` and `time` and hands events to every sink.
///
/// The thread that emits an event hands it to the sinks itself, unless another thread is doing
/// so already: that one takes every event waiting before it stops (`draining`: one drainer at a
/// time, so the sinks' calls never overlap). The emitting thread writes one batch at most;
/// whatever came meanwhile is written on the hand-off queue, so no thread is held for longer than one
/// write. No thread is woken for an engine step: on a 2-core machine whose children need both
/// cores, a thread woken per step takes a core from them, on the critical path of the run.
/// Events made together (an engine step, the lines of one read) are handed over
/// together, so a sink writes them with one `write(2)`. A large batch, from a task that floods
/// its output, is handed to the sinks on the hand-off queue instead: the output loop goes on reading while
/// they are written, and a flood keeps both cores busy.
///
/// An engine step that makes many events at once (a no-op rerun: every task ready and up to
/// date in one cascade, under the engine's lock) does not hold them all until it ends: once
/// `streamBatch` wait, they are handed to the sinks on the hand-off queue while the step goes
/// on making more, so a run of 20,000 skips holds about that many events, not 40,000.
///
/// Memory stays bounded whatever the tasks print: the events stamped and not yet written are
/// counted (`heldBytes`), and past `maxHeldBytes` a reader of task output is told there is no
/// room (`hasRoom`): it stops reading the task's pipe, so the task blocks in write(2) as under
/// make, until the sinks have written all but `resumeHeldBytes`. Events themselves are never
/// refused: the engine's (a task's end) are small and may go past the bound.
///
/// - Warning: `pending`, `seq`, `draining`, `finished`, `heldBytes`, `pendingBytes` and
///   `roomWaiters` are guarded by `state`; the sinks are called only by the one thread that set
///   `draining`.
package final class EventBus: @unchecked Sendable {
    /// More events than this waiting at a flush are written on the hand-off queue.
    static let handOffBatch = 256
    /// Once this many events wait, `post` has the hand-off queue write them while the poster
    /// goes on: an engine step that makes thousands (a no-op rerun) holds no more than about this.
    package static let streamBatch = 1024
    /// Past this many bytes of events held, output readers wait (`hasRoom`).
    package static let defaultMaxHeldBytes = 2 << 20
    /// What one event costs besides its text: the `RunEvent`, its slot and a string's header.
    static let eventOverheadBytes = 128

    let maxHeldBytes: Int
    /// Output readers waiting for room are let go once the held bytes are down to this.
    let resumeHeldBytes: Int

    private let sinks: [any EventSink]
    /// Runs the writing that is not done on the emitting thread: on `flowrun.events`, a queue
    /// of the bus's own, unless the bus was given another way (a test writes at once).
    private let handOff: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let state = NSCondition()
    private var pending: [RunEvent] = []
    private var seq = 0
    private var draining = false
    /// Set by `finish()`: the sinks are done (files closed), so later events are dropped.
    private var finished = false
    /// The estimated size of the events stamped and not yet written by every sink.
    private var heldBytes = 0
    /// The part of `heldBytes` that is in `pending`.
    private var pendingBytes = 0
    /// Called once `heldBytes` is down to `resumeHeldBytes`.
    private var roomWaiters: [@Sendable () -> Void] = []

    /// - Parameter handOff: where the writing is done that the emitting thread leaves (`flush`,
    ///   `flushElsewhere`); nil for a serial queue of the bus's own. A test on a manual loop
    ///   passes one that runs the block at once, so that no thread writes behind its back.
    package init(
        sinks: [any EventSink], maxHeldBytes: Int = EventBus.defaultMaxHeldBytes,
        handOff: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil
    ) {
        self.sinks = sinks
        self.maxHeldBytes = maxHeldBytes
        resumeHeldBytes = maxHeldBytes / 2
        if let handOff {
            self.handOff = handOff
        } else {
            let queue = DispatchQueue(label: "flowrun.events")
            self.handOff = { queue.async(execute: $0) }
        }
    }

    /// Whether the events not yet written are under the bound. When they are not, `whenDrained`
    /// is called once (on the thread that writes them) when the sinks have caught up: a reader
    /// of task output stops reading until then, which slows the task down instead of letting
    /// the events grow without bound.
    package func hasRoom(whenDrained: @escaping @Sendable () -> Void) -> Bool {
        state.withLock {
            guard heldBytes > maxHeldBytes, !finished else { return true }
            roomWaiters.append(whenDrained)
            return false
        }
    }

    /// Stamps an event and hands it to the sinks, with any others waiting; events from one
    /// thread keep their order.
    package func emit(_ kind: RunEvent.Kind) {
        post(kind)
        flush()
    }

    /// Stamps several events and hands them to the sinks together (the lines of one read).
    package func emit(contentsOf kinds: some Sequence<RunEvent.Kind>) {
        state.withLock {
            guard !finished else { return }
            for kind in kinds { stamp(kind) }
        }
        flush()
    }

    /// Stamps an event and keeps it for the next `flush` (or `emit`, from any thread): for a
    /// caller that makes several events under a lock of its own and should not write while it
    /// holds it, as the engine does. Past `streamBatch` waiting, the hand-off queue starts
    /// writing them, and the poster goes on.
    package func post(_ kind: RunEvent.Kind) {
        let streams: Bool = state.withLock {
            // A signal after the end of a run (SIGUSR1, say) must not reach a closed file.
            guard !finished else { return false }
            stamp(kind)
            guard pending.count >= Self.streamBatch, !draining else { return false }
            draining = true
            return true
        }
        // Never written here: the poster may hold a lock of its own (the engine's).
        if streams { handOff { [self] in drainUntilNoneWait() } }
    }

    /// Hands every waiting event to the sinks, unless another thread is doing so: that one
    /// takes these too before it stops. This thread writes one batch at most; what came
    /// meanwhile, or a batch of more than `handOffBatch`, is written on the hand-off queue.
    package func flush() {
        flush(here: true)
    }

    /// As `flush`, but the writing is always done on the hand-off queue: for a caller that must not wait
    /// on a sink (a stdout pipe nobody reads), such as the signal thread or the timers.
    package func flushElsewhere() {
        flush(here: false)
    }

    private func flush(here: Bool) {
        let writeHere: Bool? = state.withLock {
            guard !draining, !pending.isEmpty else { return nil }
            draining = true
            return here && pending.count <= Self.handOffBatch
        }
        switch writeHere {
        case true?: drainOneBatch()
        case false?: handOff { [self] in drainUntilNoneWait() }
        case nil: break
        }
    }

    /// The drainer's work on the emitting thread: one batch; if more came meanwhile, the drainer
    /// takes it and the hand-off queue writes it and what follows.
    private func drainOneBatch() {
        guard let batch = takePendingOrStop() else { return }
        deliver(batch)
        guard let more = takePendingOrStop() else { return }
        handOff { [self] in
            deliver(more)
            drainUntilNoneWait()
        }
    }

    /// The drainer's work on the hand-off queue: hands what waits to the sinks until nothing does.
    private func drainUntilNoneWait() {
        while let batch = takePendingOrStop() { deliver(batch) }
    }

    /// For the drainer: every event waiting, in `seq` order, and their size; or, when none
    /// waits, nil, and it is the drainer no more.
    private func takePendingOrStop() -> (events: [RunEvent], bytes: Int)? {
        state.withLock {
            guard !pending.isEmpty else {
                draining = false
                state.broadcast()
                return nil
            }
            var events: [RunEvent] = []
            swap(&events, &pending)
            defer { pendingBytes = 0 }
            return (events, pendingBytes)
        }
    }

    private func deliver(_ batch: (events: [RunEvent], bytes: Int)) {
        for sink in sinks { sink.receive(batch.events) }
        let waiters: [@Sendable () -> Void] = state.withLock {
            heldBytes -= batch.bytes
            guard heldBytes <= resumeHeldBytes else { return [] }
            defer { roomWaiters = [] }
            return roomWaiters
        }
        for waiter in waiters { waiter() }
    }

    /// Called with `state` held.
    private func stamp(_ kind: RunEvent.Kind) {
        seq += 1
        pending.append(RunEvent(seq: seq, timeMilliseconds: Self.now(), kind: kind))
        let bytes = Self.heldBytes(of: kind)
        heldBytes += bytes
        pendingBytes += bytes
    }

    /// An estimate of the memory an event holds until it is written: output lines count.
    private static func heldBytes(of kind: RunEvent.Kind) -> Int {
        guard case .taskOutput(_, _, let line) = kind else { return eventOverheadBytes }
        return eventOverheadBytes + line.utf8.count
    }

    /// Hands over every event emitted so far, then lets each sink write its summary; events
    /// emitted after this are dropped.
    package func finish() {
        let (events, waiters): ([RunEvent], [@Sendable () -> Void]) = state.withLock {
            finished = true
            while draining { state.wait() }
            draining = true  // for good: nothing reaches the sinks after this
            defer {
                pending = []
                roomWaiters = []
                (heldBytes, pendingBytes) = (0, 0)
            }
            return (pending, roomWaiters)
        }
        if !events.isEmpty { for sink in sinks { sink.receive(events) } }
        for sink in sinks { sink.finish() }
        // Events are dropped from now on, so no reader needs to wait.
        for waiter in waiters { waiter() }
    }

    /// Wall-clock milliseconds since 1970, as events carry them.
    package static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Monotonic milliseconds, for durations.
    package static func monotonicMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
