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
/// - Warning: mutable state is confined to `queue`, one serial queue for all children's output.
final class ChildProcess: RunningAttempt, @unchecked Sendable {
    /// One serial event loop for every pipe of every child.
    static let outputQueue = DispatchQueue(label: "flowrun.output")
    /// Longest line passed on whole; longer ones arrive in pieces of this size.
    static let maxLineBytes = 64 * 1024

    private let pid: pid_t
    private let events: AttemptEvents
    private let completion: @Sendable (AttemptResult) -> Void
    private var sources: [any DispatchSourceRead] = []
    private var openStreams = 2
    private var exitStatus: Int32?
    private var reaped = false

    init(_ launched: ProcessLauncher.Launched, events: AttemptEvents, completion: @escaping @Sendable (AttemptResult) -> Void) {
        pid = launched.pid
        self.events = events
        self.completion = completion
        Self.outputQueue.async { [self] in
            read(launched.stdout, as: .stdout)
            read(launched.stderr, as: .stderr)
        }
        let pid = pid
        DispatchQueue.global().async { [self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let exitStatus = status
            Self.outputQueue.async { self.exited(exitStatus) }
        }
    }

    func terminate(grace: Double) {
        Self.outputQueue.async { [self] in
            guard !reaped else { return }
            Glibc.kill(-pid, SIGTERM)
            Self.outputQueue.asyncAfter(deadline: .now() + grace) { [self] in
                if !reaped { Glibc.kill(-pid, SIGKILL) }
            }
        }
    }

    func kill() {
        Self.outputQueue.async { [self] in
            if !reaped { Glibc.kill(-pid, SIGKILL) }
        }
    }

    // MARK: On the output queue

    private func read(_ descriptor: Int32, as stream: FlowModel.OutputStream) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: Self.outputQueue)
        var splitter = LineSplitter(maxLineBytes: Self.maxLineBytes)
        let events = events
        source.setEventHandler { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    splitter.append(buffer[0..<count]) { events.output(stream, $0) }
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    splitter.flush { events.output(stream, $0) }
                    source.cancel()
                    return
                } else if errno == EAGAIN {
                    return
                }
            }
        }
        source.setCancelHandler { [self] in
            close(descriptor)
            openStreams -= 1
            finishIfDone()
        }
        sources.append(source)
        source.resume()
    }

    private func exited(_ status: Int32) {
        exitStatus = status
        reaped = true
        // Whatever the script left running in its group goes with it; that also closes the pipes.
        Glibc.kill(-pid, SIGKILL)
        finishIfDone()
    }

    private func finishIfDone() {
        guard openStreams == 0, let status = exitStatus else { return }
        sources.removeAll()
        completion(Self.result(of: status))
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
