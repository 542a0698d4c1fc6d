import CLinux
import FlowEngine
import Foundation
import Glibc

/// The engine's loop for shell tasks (`EngineLoop`): one serial queue that watches every
/// running child with epoll(7), the stdout and stderr pipes and a pidfd that tells when the
/// child has exited, and fires the run's timers (timeouts, grace periods, back-off), which set
/// how long `epoll_wait` may wait.
///
/// The loop waits in `epoll_wait` inside a block on `queue` and, once it has handled what was
/// ready, queues its next turn as another block. Shell tasks' operations start on the same
/// queue (`ActionRunner.loop`): a child's exit, the engine's step and the spawn of the next
/// task run on this one thread, between two turns, with no thread woken in between. An
/// operation added from another thread nudges the loop through its wake-up pipe.
///
/// A child is added with `epoll_ctl` from the thread that spawned it, without waking the loop,
/// and the exit is watched here too rather than by a thread blocked in `waitpid` per child.
/// A child's descriptors are watched once at a time (EPOLLONESHOT): a pipe that has not ended
/// is armed again after each read. So one that is done is closed without `EPOLL_CTL_DEL`
/// (three system calls a task fewer), and stays quiet even when the close does not take it
/// out of the epoll set: a child spawned just before still holds a copy of every descriptor
/// for a moment after its parent resumes (the kernel lets a vfork parent go before it closes
/// the child's close-on-exec descriptors), and level-triggered, a pipe at its end was
/// reported again and again until then. A closed descriptor can still be reported once (one
/// abandoned while armed), under a number since reused: so each is added with a tag of its
/// own (`tag(_:number:)`), and an event whose tag is not the current one is ignored.
/// Not dispatch read sources: libdispatch's own epoll loop is not reliable with thousands of
/// short-lived children (docs/processes.md, "Things that did not work").
///
/// A handler can pause the reading of its pipe (`pauseReading`) when the events have no room:
/// the pipe is not armed again, the child blocks in write(2) once it is full, and the exits,
/// the wake-up pipe and the other pipes are still watched, so the loop itself never waits.
///
/// One per run (`ActionRunner` makes it and ends it after the run, `end()`): two runs in one
/// process never share a loop, and none leaves a turn waiting in `epoll_wait` behind it.
///
/// - Warning: `watches`, `owners`, `abandoned`, `resumeRequested`, `ending`, `ended` and the
///   timers are guarded by `lock`; the handlers, `ready`, `buffer`, `done`, `paused` and
///   `inTurn` are only used on `queue`, so they need no lock.
package final class OutputLoop: EngineLoop, @unchecked Sendable {
    enum Watch {
        /// A pipe: the handler gets each chunk read, then nil at end of file.
        case output(Int32, (ArraySlice<UInt8>?) -> Void)
        /// A pidfd: the handler runs once the process has exited (and is not yet reaped).
        case exit(Int32, () -> Void)

        var descriptor: Int32 {
            switch self {
            case .output(let descriptor, _), .exit(let descriptor, _): descriptor
            }
        }
    }

    /// Where the loop turns, and where shell tasks' operations start.
    package let queue = DispatchQueue(label: "flowrun.output")
    private let onQueue = DispatchSpecificKey<Bool>()
    private let epoll: Int32
    private let lock = NSLock()
    /// Each watched descriptor, with the owner that added it and the tag epoll reports it with.
    private var watches = DescriptorTable<(owner: UInt64, watch: Watch, tag: UInt64)>()
    private var owners: UInt64 = 0
    /// The number of descriptors watched so far: the upper half of each one's tag.
    private var watchedCount: UInt64 = 0
    private var abandoned: [UInt64] = []
    /// Wakes the loop for what does not come with a descriptor event: `abandon` and `nudge`.
    /// Both ends are non-blocking: a full pipe already holds a wake-up.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var ready = [UInt64](repeating: 0, count: 64)
    /// For each of `ready`, nonzero when it was reported hung up with nothing to read: a pipe
    /// at its end, told without the `read(2)` that returns 0 (two a task that prints nothing).
    private var hungUp = [UInt8](repeating: 0, count: 64)
    private var buffer = [UInt8](repeating: 0, count: 65536)
    private var done: [Int32] = []
    /// Pipes not armed again until `resumeReading`.
    private var paused: Set<Int32> = []
    /// Set by `resumeReading`: at its next turn the loop reads the paused pipes again.
    private var resumeRequested = false
    /// True while a turn runs; read and written only on `queue`.
    private var inTurn = false
    private var timers = LoopTimers()
    /// The deadline the loop's wait ends by, as its last turn set it (nil: no timer, it
    /// waits for a descriptor or a wake-up): a timer due no sooner needs no wake-up.
    private var waitsUntil: Int64?
    /// Set by `end()`: the turn that sees it queues no other.
    private var ending = false
    private var ended = false

    package init() {
        epoll = flowrun_epoll_create()
        precondition(epoll >= 0, "cannot create the output loop's epoll instance")
        var ends: [Int32] = [-1, -1]
        precondition(flowrun_pipe_cloexec(&ends) == 0, "cannot create the output loop's wake-up pipe")
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        _ = fcntl(wakeRead, F_SETFL, O_NONBLOCK)
        _ = fcntl(wakeWrite, F_SETFL, O_NONBLOCK)
        precondition(flowrun_epoll_add(epoll, wakeRead, Self.tag(wakeRead, number: 0), 0) == 0, "cannot watch the output loop's wake-up pipe")
        queue.setSpecific(key: onQueue, value: true)
        queue.async { [self] in turn() }
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Ends the loop after its run, from another thread: the turn under way returns and
    /// queues no other, the descriptors still watched and the loop's epoll instance are closed,
    /// and the timers are dropped. Returns once the last turn has returned. Blocks posted later
    /// still run on `queue`; nothing may be watched any more.
    package func end() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        lock.withLock { ending = true }
        wake()
        // Behind the turn under way (or the one it queued before it saw `ending`).
        queue.sync {}
    }

    /// Whether the loop has turned for the last time (`end()`).
    package var hasEnded: Bool { lock.withLock { ended } }

    /// Wakes the loop unless this is a turn, so that blocks queued behind a turn waiting in
    /// `epoll_wait` (operations to start) run. A turn queues the next turn only when it ends,
    /// behind what it queued; any other block on the loop's queue (an operation's start, which
    /// can end the task at once and start another) runs with the next turn already queued.
    package func nudge() {
        guard DispatchQueue.getSpecific(key: onQueue) == nil || !inTurn else { return }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    package var now: Int64 { EventBus.monotonicMilliseconds() }

    package func makeQueue(name: String, limit: Int) -> any TaskQueue {
        OperationQueue.starting(on: queue, name: name, limit: limit)
    }

    package func post(_ block: @escaping @Sendable () -> Void) {
        queue.async(execute: block)
        nudge()
    }

    package func schedule(at deadline: Int64, _ block: @escaping @Sendable () -> Void) -> LoopTimer {
        let (timer, sooner) = lock.withLock { (timers.add(at: deadline, block), waitsUntil.map { deadline < $0 } ?? true) }
        // A turn on the loop sets its wait after what ran before it; one waiting now may wait
        // too long, unless it ends by this deadline anyway (a progress timer each download
        // sets, among others': a wake-up of the loop a download, 160 in 200, saved).
        if sooner, DispatchQueue.getSpecific(key: onQueue) == nil { wake() }
        return timer
    }

    package func cancel(_ timer: LoopTimer) {
        lock.withLock { timers.remove(timer) }
    }

    /// A new owner, for `watch` and `abandon`: one per child.
    func makeOwner() -> UInt64 {
        lock.withLock {
            owners += 1
            return owners
        }
    }

    /// Watches the descriptors (which the loop now owns and closes) until each is done: a pipe
    /// at end of file, a pidfd at the exit.
    func watch(_ added: [Watch], owner: UInt64) {
        // One hold of the lock for a child's three descriptors (epoll_ctl is quick), each in the
        // table before epoll can report it.
        lock.withLock {
            for watch in added {
                watchedCount += 1
                let tag = Self.tag(watch.descriptor, number: watchedCount)
                watches[watch.descriptor] = (owner, watch, tag)
                precondition(flowrun_epoll_add(epoll, watch.descriptor, tag, 1) == 0, "cannot watch a child's descriptor: errno \(errno)")
            }
        }
    }

    /// Ends the pipes of `owner` that are still open as if at end of file, and closes them:
    /// for output held open by processes that left a finished child's group.
    func abandon(_ owner: UInt64) {
        lock.withLock { abandoned.append(owner) }
        wake()
    }

    /// Stops reading `descriptor` until `resumeReading`; called on the loop's queue, by the
    /// pipe's handler, when the events it makes have no room (`EventBus.hasRoom`).
    func pauseReading(_ descriptor: Int32) {
        // Reported once, it is not armed again until `resumeIfRequested`.
        paused.insert(descriptor)
    }

    /// Reads every paused pipe again, from the loop's next turn; called from any thread. A pipe
    /// that still has no room is paused again by its handler after one read.
    func resumeReading() {
        lock.withLock { resumeRequested = true }
        wake()
    }

    /// Waits for ready descriptors, handles them, and queues the next turn behind whatever the
    /// handlers queued meanwhile (the starts of the next tasks).
    private func turn() {
        inTurn = true
        defer {
            inTurn = false
            if lock.withLock({ ending }) { finishEnding() } else { queue.async { [self] in turn() } }
        }
        let deadline: Int64? = lock.withLock {
            waitsUntil = timers.nextDeadline
            return waitsUntil
        }
        let wait = deadline.map { Int32(clamping: max(0, $0 - now)) } ?? -1
        let count = flowrun_epoll_wait(epoll, &ready, &hungUp, Int32(ready.count), wait)
        defer { fireDueTimers() }
        guard count > 0 else { return }  // a timer is due, or EINTR
        for position in 0..<Int(count) {
            let tag = ready[position]
            let descriptor = Int32(truncatingIfNeeded: tag)
            guard !done.contains(descriptor) else { continue }
            if tag == Self.tag(wakeRead, number: 0) {
                endAbandoned()
                resumeIfRequested()
                continue
            }
            guard !isPaused(descriptor), let watch = lock.withLock({ watches[descriptor].flatMap { $0.tag == tag ? $0.watch : nil } })
            else { continue }
            switch watch {
            case .output(_, let handler):
                if hungUp[position] != 0 {
                    // Empty, and no process holds its write end any more: its end.
                    handler(nil)
                    done.append(descriptor)
                } else if !drain(descriptor, handler) {
                    done.append(descriptor)
                } else if !isPaused(descriptor) {
                    precondition(flowrun_epoll_rearm(epoll, descriptor, tag) == 0, "cannot watch a child's descriptor again: errno \(errno)")
                }
            case .exit(_, let handler):
                handler()
                done.append(descriptor)
            }
        }
        // Closed only after the whole batch; reported once, each is quiet in the epoll set
        // until the close takes it out (see the type).
        for descriptor in done {
            lock.withLock { watches[descriptor] = nil }
            if !paused.isEmpty { paused.remove(descriptor) }
            close(descriptor)
        }
        done.removeAll(keepingCapacity: true)
    }

    /// The end of the last turn: closes what the loop still owns, and drops the handlers and
    /// timers (which hold the children and the engine).
    private func finishEnding() {
        let left: [Int32] = lock.withLock {
            defer {
                watches = DescriptorTable()
                timers = LoopTimers()
                abandoned = []
                ended = true
            }
            return watches.entries.map(\.descriptor)
        }
        for descriptor in left { close(descriptor) }
        paused.removeAll()
        close(epoll)
    }

    /// Runs the timers whose deadline has come, earliest first.
    private func fireDueTimers() {
        let now = now
        while let block = lock.withLock({ timers.takeDue(at: now) }) { block() }
    }

    /// Tells the handlers of abandoned pipes that they have ended (once: `done` holds what has).
    private func endAbandoned() {
        var byte: UInt8 = 0
        while read(wakeRead, &byte, 1) > 0 {}
        let ended: [(Int32, (ArraySlice<UInt8>?) -> Void)] = lock.withLock {
            // Most wake-ups are nudges: no pipe abandoned, no walk over every one watched.
            guard !abandoned.isEmpty else { return [] }
            let owners = Set(abandoned)
            abandoned.removeAll()
            return watches.entries.compactMap { descriptor, entry in
                guard owners.contains(entry.owner), case .output(_, let handler) = entry.watch else { return nil }
                return (descriptor, handler)
            }
        }
        for (descriptor, handler) in ended where !done.contains(descriptor) {
            // Paused with every writer gone, it holds only what the child wrote before its
            // exit: that is read to its end once the events have room, not thrown away.
            if isPaused(descriptor) && Self.isHungUp(descriptor) { continue }
            handler(nil)
            done.append(descriptor)
        }
    }

    /// Whether `descriptor`'s reading is paused; mostly none is, and then nothing is hashed.
    private func isPaused(_ descriptor: Int32) -> Bool {
        !paused.isEmpty && paused.contains(descriptor)
    }

    private func resumeIfRequested() {
        guard
            lock.withLock({ () -> Bool in
                defer { resumeRequested = false }
                return resumeRequested
            })
        else { return }
        for descriptor in paused {
            guard let tag = lock.withLock({ watches[descriptor]?.tag }) else { continue }
            precondition(flowrun_epoll_rearm(epoll, descriptor, tag) == 0, "cannot watch a child's descriptor again: errno \(errno)")
        }
        paused.removeAll()
    }

    /// The tag epoll reports `descriptor` with: its number in the lower half, and which
    /// descriptor watched under that number it is (`watchedCount`; 0 for the wake-up pipe) in the upper.
    private static func tag(_ descriptor: Int32, number: UInt64) -> UInt64 {
        number << 32 | UInt64(UInt32(bitPattern: descriptor))
    }

    /// Whether no process holds the pipe's write end any more.
    private static func isHungUp(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLHUP) != 0
    }

    /// Reads once what epoll reported there, so that a child writing without pause cannot starve
    /// the others (epoll reports it again on the next turn, once armed again); false (handler
    /// told) at end of file or on error.
    ///
    /// The pipe is left blocking, as the child got it (no `fcntl` a pipe, two system calls a
    /// task): one read after epoll reported it cannot block, since only this loop reads it, and
    /// a pipe's read returns what it holds (64 KiB by default: the buffer's size) without
    /// waiting for more. A second read could block, so there is none before the next report.
    private func drain(_ descriptor: Int32, _ handler: @escaping (ArraySlice<UInt8>?) -> Void) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                handler(buffer[0..<count])
                return true
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 && errno == EAGAIN {
                return true
            } else {
                handler(nil)
                return false
            }
        }
    }
}
