import CSpawn
import Dispatch
import FlowEngine
import FlowModel
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running child process: streams its output line by line, waits for its exit, and cleans up
/// its whole process group when it ends, so a `sleep 1000 &` left behind by a script dies too.
///
/// - Warning: `openStreams`, `exitStatus` and `reaped` are guarded by `lock`; each stream's line
///   splitter is only touched on the output loop's thread.
final class ChildProcess: RunningAttempt, @unchecked Sendable {
    /// Longest line passed on whole; longer ones arrive in pieces of this size.
    static let maxLineBytes = 64 * 1024

    private let pid: pid_t
    private let completion: @Sendable (AttemptResult) -> Void
    private let lock = NSLock()
    private var openStreams = 2
    private var exitStatus: Int32?
    private var reaped = false

    init(_ launched: ProcessLauncher.Launched, events: AttemptEvents, completion: @escaping @Sendable (AttemptResult) -> Void) {
        pid = launched.pid
        self.completion = completion
        var watches: [OutputLoop.Watch] = []
        for (descriptor, stream) in [(launched.stdout, FlowModel.OutputStream.stdout), (launched.stderr, .stderr)] {
            var splitter = LineSplitter(maxLineBytes: Self.maxLineBytes)
            watches.append(.output(descriptor) { [self] bytes in
                if let bytes {
                    splitter.append(bytes) { events.output(stream, $0) }
                } else {
                    splitter.flush { events.output(stream, $0) }
                    streamClosed()
                }
            })
        }
        let pidfd = flowrun_pidfd_open(pid)
        if pidfd >= 0 {
            watches.append(.exit(pidfd) { [self] in reapExited() })
        } else {
            // No pidfd (a kernel before 5.3, or a sandbox that forbids it): a thread waits.
            let pid = pid
            DispatchQueue.global().async { [self] in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                exited(status)
            }
        }
        OutputLoop.shared.watch(watches)
    }

    func terminate(grace: Double) {
        guard signalGroup(SIGTERM) else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [self] in _ = signalGroup(SIGKILL) }
    }

    func kill() {
        _ = signalGroup(SIGKILL)
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
        let status: Int32? = lock.withLock {
            openStreams -= 1
            return openStreams == 0 ? exitStatus : nil
        }
        if let status { completion(Self.result(of: status)) }
    }

    /// The pidfd says the child has exited: it is a zombie until reaped, so its process group
    /// still exists and is ours; whatever the script left running in it goes with it (that also
    /// closes the pipes), and then the child is reaped.
    private func reapExited() {
        var status: Int32 = 0
        let done: Bool = lock.withLock {
            Glibc.kill(-pid, SIGKILL)
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            exitStatus = status
            reaped = true
            return openStreams == 0
        }
        if done { completion(Self.result(of: status)) }
    }

    /// The fallback's end: the child is reaped already.
    private func exited(_ status: Int32) {
        let done: Bool = lock.withLock {
            exitStatus = status
            // The group keeps its id while any member lives, so this cannot hit another.
            Glibc.kill(-pid, SIGKILL)
            reaped = true
            return openStreams == 0
        }
        if done { completion(Self.result(of: status)) }
    }

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
        let names: [Int32: String] = [SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGABRT: "SIGABRT",
                                      SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGPIPE: "SIGPIPE", SIGTERM: "SIGTERM"]
        return names[signal].map { "\($0) (\(signal))" } ?? "\(signal)"
    }
}
