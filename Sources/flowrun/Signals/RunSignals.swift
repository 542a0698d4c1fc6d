import CLinux
import FlowActions
import FlowConsole
import FlowEngine
import Foundation
import Glibc

/// Turns signals into engine calls, or into an exit, from the start of `run` to its exit
/// (ARCHITECTURE.md, trap 4).
///
/// While the file and the outputs are opened (`loading`: a FIFO, a terminal's stdin), SIGINT,
/// SIGTERM, SIGHUP and SIGQUIT end flowrun at once with 128 + the signal: there is nothing to
/// cancel. While the run goes on, SIGINT, SIGTERM or SIGHUP cancels it (SIGHUP also reaches
/// the tasks, as a hang-up would in a terminal's group) and runs its `when: always` tasks
/// as cleanup (`CleanupRule`); a second SIGINT, or a SIGQUIT, kills what is still running,
/// cleanup included. Once every task has ended (`over`: only writing is left, to a
/// stdout that may be stalled), any of them ends flowrun at once. SIGUSR1 suspends the queues
/// and SIGUSR2 resumes them (before the run, they say how it starts).
///
/// Job control: a terminal's Ctrl-Z (SIGTSTP) reaches flowrun's process group only, not the
/// tasks' groups; as `make` and its jobs stop together, flowrun passes it on to every task's
/// group, then stops itself. SIGCONT (`fg`, `bg`) continues flowrun whatever it blocks; it is
/// then passed on to the tasks. With the live view, the terminal is left as the shell expects it
/// while flowrun is stopped (line mode, echo, the cursor shown: `PauseKey.releaseTerminal()`),
/// and taken again when it continues in the foreground.
///
/// `blockSignals()` runs first, while the process has one thread, so that every thread blocks
/// them; one thread of ours then takes them with `sigwait`. A blocked signal stays pending, so
/// none is lost, however early it comes. (Not dispatch signal sources: on Linux they can lose
/// a Ctrl-C sent in the first milliseconds of a run, and releasing one can crash libdispatch.)
/// Children get an empty signal mask and default dispositions back at spawn. SIGPIPE is ignored
/// so that a closed stdout shows up as a write error, not a death.
///
/// A cancelled run whose end cannot be written (a stdout nobody reads holds the writing
/// thread, and with it the run) still exits: `lastWordsSeconds` after every task was killed.
/// Sooner when only a standard output that takes nothing (a full pipe nobody reads) holds it:
/// once, after the cancel, only writing has been left for `stalledSeconds` (every task has
/// ended, or no task process is left, no download, decompress or combine attempt is still
/// running or cleaning up, and a task's end waits for room for its last output), or
/// the engine's loop has not run a block posted to it for as long (it is stuck in that write,
/// and cannot pass the cancel on), flowrun kills the tasks' process groups and exits: nobody is
/// reading what it would wait to write.
///
/// - Warning: every `var` is guarded by `lock`.
final class RunSignals: @unchecked Sendable {
    static let handled = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGTSTP, SIGCONT]
    /// How long a run whose tasks were all killed has to write its end before flowrun exits anyway.
    static let lastWordsSeconds = 5.0
    /// How long a cancelled run waits on a standard output that takes nothing, before it exits.
    static let stalledSeconds = 0.5
    /// How often a cancelled run looks at standard output and the engine.
    static let stallCheckSeconds = 0.1

    private enum Phase {
        case loading(suspended: Bool)
        case running(Engine)
        case over
    }

    private let lock = NSLock()
    private let grace: Double
    private var phase = Phase.loading(suspended: false)
    /// The signal whose 128 + number is the exit status: the first that cancelled, or SIGQUIT.
    private var statusSignal: Int32?
    /// The tasks were killed (a second SIGINT, a SIGQUIT).
    private var killed = false
    /// When flowrun exits even if the run has not ended.
    private var exitDeadline: Date?
    /// A terminal whose cursor the live view hides, shown again by an exit at once, and while
    /// flowrun is stopped.
    private var liveTerminal: Int32?
    /// The live view, told when flowrun continues after a stop (Ctrl-Z).
    private var liveView: LiveConsole?
    /// Set by `exitNow`: the process is ending, and no run may start meanwhile.
    private var exiting = false
    /// Since when, with standard output stalled, only writing has been left of the run.
    private var onlyWritingSince: Date?
    /// When a block was posted to the engine's loop that has not run yet: how long it is stuck.
    private var loopPingedAt: Date?
    /// The run's download, decompress and combine attempts: no process group shows them.
    private var unfinishedAttempts: UnfinishedAttempts?

    /// Blocks the handled signals in the calling thread and every thread created after it, and
    /// SIGCHLD, which nothing waits for: a child's exit is signalled to the thread that spawned
    /// it, a dispatch worker that blocks it, and so to any thread that does not; unblocked,
    /// each exit would wake the main thread to throw the signal away (a context switch per
    /// task; pidfds tell of exits). Blocked, not ignored: ignoring SIGCHLD would lose exit
    /// statuses.
    static func blockSignals() {
        var set = handledSet()
        sigaddset(&set, SIGCHLD)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The handled signals but SIGHUP, SIGINT, SIGQUIT and SIGTERM when flowrun's parent left
    /// them ignored (`nohup`, `cmd &` in a non-interactive sh): as make does, flowrun keeps
    /// them ignored, so they are neither blocked nor waited for, and the kernel discards them.
    private static func handledSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handled where flowrun_ignored_at_start(number) == 0 { sigaddset(&set, number) }
        return set
    }

    /// Starts the thread that waits for signals, in the `loading` phase; it lives until the
    /// process exits. Call right after `blockSignals()`, before anything is opened.
    init(grace: Double) {
        self.grace = grace
        signal(SIGPIPE, SIG_IGN)
        let thread = Thread { [self] in
            // Named for ps and for the tests, which wait for it before they send a signal.
            _ = flowrun_name_thread("flowrun.signals")
            var set = Self.handledSet()
            while true {
                let number = nextSignal(&set)
                if number > 0 {
                    received(number)
                } else if let (deadline, number) = lock.withLock({ exitDeadline.map { ($0, statusSignal ?? SIGTERM) } }),
                    Date() >= deadline
                {
                    exitNow(status: 128 + number)
                }
                if let number = onlyStandardOutputHoldsTheRun() { exitNow(status: 128 + number) }
            }
        }
        thread.start()
    }

    /// Waits for a signal, or until `exitDeadline` when there is one; 0 when none came.
    private func nextSignal(_ set: inout sigset_t) -> Int32 {
        guard let deadline = lock.withLock({ exitDeadline }) else {
            var number: Int32 = 0
            return sigwait(&set, &number) == 0 ? number : 0
        }
        let seconds = min(max(0, deadline.timeIntervalSinceNow), Self.stallCheckSeconds)
        var timeout = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        return max(0, sigtimedwait(&set, nil, &timeout))
    }

    /// The run starts: signals now cancel it. `liveView` draws on standard output;
    /// `unfinishedAttempts` counts its in-process attempts (nil when it runs none).
    func runStarted(_ engine: Engine, liveView: LiveConsole?, unfinishedAttempts: UnfinishedAttempts? = nil) {
        let (suspended, exiting): (Bool, Bool) = lock.withLock {
            defer { phase = .running(engine) }
            self.unfinishedAttempts = unfinishedAttempts
            self.liveTerminal = liveView == nil ? nil : STDOUT_FILENO
            self.liveView = liveView
            if case .loading(let suspended) = phase { return (suspended, self.exiting) }
            return (false, self.exiting)
        }
        // A signal while loading is ending the process (`exitNow`): a run started now would
        // start tasks whose staging folders and temporary files that exit leaves behind.
        if exiting { while true { pause() } }
        if suspended { engine.suspend() }
    }

    /// The `p` key of the live view: pauses a running run, resumes a paused one (as SIGUSR1
    /// and SIGUSR2 do); before the run, it says how the run starts.
    func togglePause() {
        let engine: Engine? = lock.withLock {
            switch phase {
            case .loading(let suspended):
                phase = .loading(suspended: !suspended)
                return nil
            case .running(let engine): return engine
            case .over: return nil
            }
        }
        guard let engine else { return }
        if engine.isSuspended { engine.resume() } else { engine.suspend() }
    }

    /// Every task has ended: a signal now ends flowrun at once.
    func runEnded() {
        lock.withLock { phase = .over }
    }

    /// The signal the run's exit status stands for (128 + its number), if one cancelled it.
    var exitSignal: Int32? { lock.withLock { statusSignal } }

    private enum Action {
        case none, exit(status: Int32), suspend(Engine), resume(Engine), cancel(Engine), kill(Engine, cancelFirst: Bool)
    }

    private func received(_ number: Int32) {
        switch number {
        case SIGTSTP:
            // The kernel discards SIGTSTP in an orphaned process group, where nobody could
            // continue it: flowrun's parent in another session (setsid, a shell gone). So here.
            guard getsid(getppid()) == getsid(0) else { return }
            let terminal = lock.withLock { liveTerminal }
            TaskGroups.shared.stopAll {
                // The terminal as the shell expects it while flowrun is stopped, as `less` and
                // `vim` leave it: line mode, echo, the cursor shown.
                PauseKey.releaseTerminal()
                if let terminal { Self.writeIfReady("\u{1B}[?25h", to: terminal) }
                kill(getpid(), SIGSTOP)
            }
            return
        case SIGCONT:
            TaskGroups.shared.signalAll(SIGCONT)
            PauseKey.retakeTerminal()
            lock.withLock { liveView }?.continuedAfterStop()
            return
        default: break
        }
        let action: Action = lock.withLock {
            switch phase {
            case .loading:
                if number == SIGUSR1 || number == SIGUSR2 {
                    phase = .loading(suspended: number == SIGUSR1)
                    return .none
                }
                return .exit(status: number)
            case .over:
                return number == SIGUSR1 || number == SIGUSR2 ? .none : .exit(status: number)
            case .running(let engine):
                return running(engine, received: number)
            }
        }
        switch action {
        case .none: break
        case .exit(let number): exitNow(status: 128 + number)
        case .suspend(let engine): engine.suspend()
        case .resume(let engine): engine.resume()
        case .cancel(let engine):
            // A hang-up reaches the tasks too, as it would a terminal's foreground group: those
            // running or being spawned when it came (`Engine.cancel`), not cleanup started after.
            if engine.cancel(reason: Self.reason(number), hangingUp: number == SIGHUP) {
                // Cleanup can run for the grace period, then be stopped with one more.
                lock.withLock { exitDeadline = Date().addingTimeInterval(2 * grace + Self.lastWordsSeconds) }
            }
        case .kill(let engine, let cancelFirst):
            if cancelFirst { engine.cancel(reason: Self.reason(number), withCleanup: false) }
            engine.kill(reason: Self.reason(number))
            TaskGroups.shared.signalAll(SIGKILL)
        }
    }

    /// What `number` does while the run goes on. Called with `lock` held.
    private func running(_ engine: Engine, received number: Int32) -> Action {
        switch number {
        case SIGUSR1: return .suspend(engine)
        case SIGUSR2: return .resume(engine)
        default: break
        }
        // Only writing is left (the run's end, to a stalled stdout), or the tasks were killed
        // already: nothing more to wait for.
        if engine.isOver { return .exit(status: number) }
        if killed { return .exit(status: statusSignal ?? number) }
        let first = statusSignal == nil
        if number == SIGQUIT || (number == SIGINT && !first) {
            killed = true
            if number == SIGQUIT || first { statusSignal = number }
            exitDeadline = Date().addingTimeInterval(Self.lastWordsSeconds)
            return .kill(engine, cancelFirst: first)
        }
        guard first else { return .none }  // a second SIGTERM or SIGHUP
        statusSignal = number
        exitDeadline = Date().addingTimeInterval(grace + Self.lastWordsSeconds)
        return .cancel(engine)
    }

    /// The signal to exit with when a cancelled run waits on nothing but a standard output that
    /// has taken nothing for `stalledSeconds`: every task has ended, or the loop has been stuck
    /// as long. nil while it should go on waiting.
    private func onlyStandardOutputHoldsTheRun() -> Int32? {
        guard
            let (engine, number) = lock.withLock({ () -> (Engine, Int32)? in
                guard case .running(let engine) = phase, let number = statusSignal else { return nil }
                return (engine, number)
            })
        else { return nil }
        // A full pipe is not writable; a file, a terminal being read, or a closed pipe
        // (an error at once) are.
        var output = pollfd(fd: STDOUT_FILENO, events: Int16(POLLOUT), revents: 0)
        let stalled = Glibc.poll(&output, 1, 0) == 0
        let now = Date()
        let (pinged, ping): (Date?, Bool) = lock.withLock {
            guard stalled else {
                onlyWritingSince = nil
                return (nil, false)
            }
            let ping = loopPingedAt == nil
            if ping { loopPingedAt = now }
            return (loopPingedAt, ping)
        }
        guard stalled else { return nil }
        if ping { engine.afterPosted { [self] in lock.withLock { loopPingedAt = nil } } }
        // The loop has not run a block posted while stdout was already stalled.
        if let pinged, now.timeIntervalSince(pinged) >= Self.stalledSeconds { return number }
        // A task whose process has exited but whose last output waits for room is over too;
        // an in-process attempt is not while it runs or cleans up (a staging folder, a
        // temporary file), though it has no process group.
        let attemptsEnded = lock.withLock { unfinishedAttempts }?.isEmpty ?? true
        let onlyWriting = engine.isOver || (TaskGroups.shared.current.isEmpty && attemptsEnded)
        let since: Date? = lock.withLock {
            onlyWritingSince = onlyWriting ? onlyWritingSince ?? now : nil
            return onlyWritingSince
        }
        guard let since, now.timeIntervalSince(since) >= Self.stalledSeconds else { return nil }
        return number
    }

    private static func reason(_ number: Int32) -> String {
        switch number {
        case SIGINT: "interrupted (SIGINT)"
        case SIGHUP: "hung up (SIGHUP)"
        case SIGQUIT: "quit (SIGQUIT)"
        default: "terminated (SIGTERM)"
        }
    }

    /// Kills every task and what they left, shows the cursor again, and exits with `status`,
    /// without waiting for any write (the one to the terminal only if it would not block).
    private func exitNow(status: Int32) -> Never {
        let terminal = lock.withLock {
            exiting = true
            return liveTerminal
        }
        TaskGroups.shared.signalAll(SIGKILL)
        LeftoverProcesses.killAll(sparing: TaskGroups.shared.watchdogPid)
        PauseKey.restoreTerminal()
        if let terminal { Self.writeIfReady("\u{1B}[?25h", to: terminal) }
        _exit(status)
    }

    /// Writes `text` to `terminal` only if that would not block (a terminal stopped by Ctrl-S
    /// must not hold the signal thread).
    private static func writeIfReady(_ text: String, to terminal: Int32) {
        var poll = pollfd(fd: terminal, events: Int16(POLLOUT), revents: 0)
        if Glibc.poll(&poll, 1, 0) == 1, poll.revents & Int16(POLLOUT) != 0 {
            _ = text.withCString { Glibc.write(terminal, $0, strlen($0)) }
        }
    }
}
