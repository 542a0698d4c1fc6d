import CLinux
import Dispatch
import FlowEngine
import FlowModel
import Foundation
import Glibc

/// A running child process: streams its output line by line, waits for its exit, and cleans up
/// its whole process group when it ends, so a `sleep 1000 &` left behind by a script dies too.
///
/// - Warning: `openStreams`, `exitStatus`, `reaped` and `outputGraceTimer` are guarded by `lock`;
///   each stream's line splitter and `leftoversMayRemain` are only touched on the output loop's queue.
final class ChildProcess: RunningAttempt, @unchecked Sendable {
    /// Longest line passed on whole; longer ones arrive in pieces of this size.
    static let maxLineBytes = 64 * 1024

    /// How long output may still arrive once the child has exited and its group is killed:
    /// from processes that left the group (`setsid`, a daemon), which would otherwise hold the
    /// task open for as long as they live, past its timeout and past Ctrl-C.
    static let outputGraceMilliseconds: Int64 = 1000

    /// Threads that wait for an exit where there is no pidfd: one blocked thread per child, so
    /// a queue of flowrun's own (which gets more threads as they block), not the global one,
    /// whose few threads a handful of waiting children would use up.
    private static let exitWaiters = DispatchQueue(label: "flowrun.exit-waiters", attributes: .concurrent)

    private let pid: pid_t
    /// The run's loop, which watches the child's pipes and exit.
    private let loop: OutputLoop
    private let owner: UInt64
    private let completion: @Sendable (AttemptResult) -> Void
    private let lock = NSLock()
    private var openStreams = 2
    private var exitResult: AttemptResult?
    private var reaped = false
    /// Whether a leftover of the task may still be in its group once the child is reaped
    /// (`TaskGroups.reap`): only then does `finish` wait for it.
    private var leftoversMayRemain = true
    private var outputGraceTimer: LoopTimer?

    init(
        _ launched: ProcessLauncher.Launched, loop: OutputLoop, events: AttemptEvents, completion: @escaping @Sendable (AttemptResult) -> Void
    ) {
        pid = launched.pid
        self.loop = loop
        owner = loop.makeOwner()
        self.completion = completion
        var watches: [OutputLoop.Watch] = []
        watches.reserveCapacity(3)  // two pipes and the exit: no growing on the loop, a task
        for (descriptor, stream) in [(launched.stdout, FlowModel.OutputStream.stdout), (launched.stderr, .stderr)] {
            var splitter = LineSplitter(maxLineBytes: Self.maxLineBytes)
            watches.append(
                .output(descriptor) { [self] bytes in
                    // The lines of one read go out together: one write for the sinks, not one a line.
                    // One access to the captured splitter a read (each is a check of the runtime's).
                    let lines = splitter.lines(of: bytes)
                    if !lines.isEmpty { events.output(stream, lines) }
                    if bytes == nil {
                        streamClosed()
                    } else if !events.hasRoomForOutput({ [loop] in loop.resumeReading() }) {
                        // The sinks are behind: the child waits on its full pipe until they catch up.
                        loop.pauseReading(descriptor)
                    }
                })
        }
        let pidfd = flowrun_pidfd_open(pid)
        if pidfd >= 0 {
            watches.append(.exit(pidfd) { [self] in reapExited() })
        } else {
            // No pidfd (a kernel before 5.3, or a sandbox that forbids it): a thread waits for
            // the exit without reaping (WNOWAIT), so the group is still ours to kill, and
            // reports it on the loop, where attempts end.
            let pid = pid
            Self.exitWaiters.async { [self] in
                var info = siginfo_t()
                while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
                loop.post { [self] in reapExited() }
            }
        }
        loop.watch(watches, owner: owner)
    }

    /// SIGTERM, then SIGCONT: a stopped process (SIGSTOP, Ctrl-Z) acts on SIGTERM only once
    /// it runs again, as systemd and the kernel's OOM handling do it.
    func terminate() {
        guard signalGroup(SIGTERM) else { return }
        _ = signalGroup(SIGCONT)
    }

    func kill() {
        _ = signalGroup(SIGKILL)
    }

    func hangUp() {
        _ = signalGroup(SIGHUP)
    }

    /// Signals the child's process group unless the child is reaped (its pid may be reused).
    private func signalGroup(_ signal: Int32) -> Bool {
        lock.withLock {
            guard !reaped else { return false }
            Glibc.kill(-pid, signal)
            return true
        }
    }

    private func streamClosed() {
        let (result, timer): (AttemptResult?, LoopTimer?) = lock.withLock {
            openStreams -= 1
            guard openStreams == 0 else { return (nil, nil) }
            defer { outputGraceTimer = nil }
            return (exitResult, outputGraceTimer)
        }
        if let timer { loop.cancel(timer) }
        if let result { finish(result) }
    }

    /// The child has exited and is a zombie until reaped, so its process group still exists
    /// and is ours: whatever the script left running in it goes with it (that also closes the
    /// pipes), and then the child is reaped.
    private func reapExited() {
        let done: AttemptResult? = lock.withLock {
            Glibc.kill(-pid, SIGKILL)
            let (reapedPid, status, mayRemain) = TaskGroups.shared.reap(pid)
            leftoversMayRemain = mayRemain
            // ECHILD: something else reaped it (SIGCHLD ignored, say); its status is lost.
            exitResult =
                reapedPid == pid
                ? Self.result(of: status)
                : .failed(reason: "cannot get the exit status: \(ProcessLauncher.errorText(reapedPid == -1 ? errno : ECHILD))", exitCode: nil)
            reaped = true
            return openStreams == 0 ? exitResult : nil
        }
        if let done {
            finish(done)
        } else {
            let owner = owner
            let loop = loop
            let timer = loop.schedule(at: loop.now + Self.outputGraceMilliseconds) { loop.abandon(owner) }
            lock.withLock { outputGraceTimer = timer }
        }
    }

    /// Hands the result on once the leftovers killed with the group are reaped: those that
    /// outlived the shell (`cmd &`) are flowrun's, the subreaper's, and die moments after the
    /// SIGKILL; the dependents that start next find no zombie of them. One that does not die
    /// (stuck in the kernel) is not waited for past `leftoverWaitMilliseconds`: it is reaped at
    /// a later task's end, or when the run ends.
    private func finish(_ result: AttemptResult, waited: Int64 = 0) {
        guard waited < Self.leftoverWaitMilliseconds, leftoversMayRemain, TaskGroups.shared.leftoversRemain(in: pid) else {
            completion(result)
            return
        }
        let step = max(1, waited)  // 1, 1, 2, 4 ... ms
        _ = loop.schedule(at: loop.now + step) { [self] in finish(result, waited: waited + step) }
    }

    static let leftoverWaitMilliseconds = outputGraceMilliseconds

    /// Decodes a wait status: an exit code, or the signal that ended the process.
    static func result(of status: Int32) -> AttemptResult {
        let signal = status & 0x7F
        if signal == 0 {
            let code = Int((status >> 8) & 0xFF)
            return code == 0 ? .succeeded : .failed(reason: "exited with status \(code)", exitCode: code)
        }
        return .failed(reason: "killed by signal \(signalName(signal))", exitCode: nil)
    }

    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGABRT: "SIGABRT",
            SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGPIPE: "SIGPIPE", SIGTERM: "SIGTERM",
        ]
        return names[signal].map { "\($0) (\(signal))" } ?? "\(signal)"
    }
}
