import Foundation
import Glibc
import Testing

/// SIGUSR1 and SIGUSR2 are blocked from the first line of `main`, before the command line is
/// read, so that one sent while `run` starts waits for it (a pause asked for early) instead of
/// killing flowrun (their default action). Only `run` takes them: the other commands get the
/// mask flowrun started with back, and the tasks are spawned with an empty one.
@Suite struct StartupSignalMaskTests {
    static let pauseSignals: UInt64 = 1 << (UInt64(SIGUSR1) - 1) | 1 << (UInt64(SIGUSR2) - 1)

    /// Starts `flowrun arguments...` with no signal blocked, as a shell starts it: the test
    /// process spawns its children with the mask it has (most signals blocked), which flowrun
    /// would keep. python3 clears it, then becomes flowrun (same pid).
    static func withNoneBlocked(_ arguments: [String], in folder: URL) throws -> LiveRun {
        let clear = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
        return try LiveRun(["python3", "-c", clear, FlowrunBinary.url.path] + arguments, in: folder, executable: "/usr/bin/env")
    }

    /// The `SigBlk` mask of `/proc/PID/status` (the main thread's), or nil once it is gone.
    static func blocked(_ pid: pid_t) -> UInt64? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") })
        else { return nil }
        return UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    }

    @Test func runHoldsThePauseSignalsAndItsTasksStartWithNoneBlocked() async throws {
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            tasks:
              t: {shell: "grep SigBlk /proc/self/status; while [ ! -e go ]; do sleep 0.05; done"}

            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let run = try Self.withNoneBlocked(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        #expect(await run.waitFor("[t] | SigBlk:"))
        let flowrun = try #require(Self.blocked(run.process.processIdentifier))
        #expect(flowrun & Self.pauseSignals == Self.pauseSignals, "flowrun's SigBlk \(String(flowrun, radix: 16))")
        FileManager.default.createFile(atPath: folder.url.appendingPathComponent("go").path, contents: nil)
        #expect(await run.wait() == 0, "\(run.stderr)")
        #expect(run.stdout.contains("[t] | SigBlk:\t0000000000000000\n"), "\(run.stdout)")
    }

    /// `validate` of a FIFO waits in open(2) and then read(2) for a writer: meanwhile its mask
    /// is the one it started with (none blocked here), so SIGUSR1 keeps its default action.
    @Test func anotherCommandGetsItsStartingMaskBack() async throws {
        let folder = try TemporaryFolder()
        let fifo = folder.url.appendingPathComponent("flow.yaml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try Self.withNoneBlocked(["validate", "flow.yaml"], in: folder.url)
        // A non-blocking open for writing succeeds once flowrun has the FIFO open for reading
        // (ENXIO before): it then reads, after the command line was parsed.
        var writer: Int32 = -1
        let deadline = ContinuousClock.now + .seconds(120)
        while writer < 0, run.process.isRunning, ContinuousClock.now < deadline {
            writer = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if writer < 0 { try? await Task.sleep(for: .milliseconds(5)) }
        }
        try #require(writer >= 0, "flowrun never opened the FIFO: \(run.stderr)")
        let mask = Self.blocked(run.process.processIdentifier)
        let text = "version: 1\ntasks:\n  t: {shell: \"true\"}\n"
        _ = text.withCString { write(writer, $0, strlen($0)) }
        close(writer)
        #expect(await run.wait() == 0, "\(run.stderr)")
        #expect(run.stdout == "flow.yaml: ok (1 task)\n")
        let seen = try #require(mask)
        #expect(seen & Self.pauseSignals == 0, "validate's SigBlk \(String(seen, radix: 16))")
    }
}
