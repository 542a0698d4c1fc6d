import Foundation
import Glibc
import Testing

/// A signal flowrun's parent left ignored stays ignored, as GNU make keeps it: `nohup flowrun`
/// ignores SIGHUP, `flowrun ... &` in a non-interactive sh SIGINT and SIGQUIT. flowrun took them
/// anyway: it blocked and waited for them, and a blocked signal is not discarded. Its tasks
/// still start with every signal at its default action (`RunTests`).
@Suite struct IgnoredSignalTests {
    /// Starts `flowrun arguments...` with `signal` ignored and none blocked: python3 sets them,
    /// then becomes flowrun (same pid), as `nohup` or sh's `&` would.
    static func withIgnored(_ signal: Int32, _ arguments: [String], in folder: URL) throws -> LiveRun {
        let ignore =
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
            + "signal.signal(int(sys.argv[1]), signal.SIG_IGN); os.execv(sys.argv[2], sys.argv[2:])"
        return try LiveRun(["python3", "-c", ignore, String(signal), FlowrunBinary.url.path] + arguments, in: folder, executable: "/usr/bin/env")
    }

    /// The signal is sent, then SIGUSR1: the signal thread takes pending signals lowest number
    /// first, so once the pause shows, the ignored signal would have been taken already.
    @Test(arguments: [SIGINT, SIGQUIT, SIGTERM, SIGHUP])
    func aSignalIgnoredAtStartNeitherCancelsNorEndsTheRun(signal: Int32) async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              t: {shell: "grep SigIgn /proc/self/status; echo ready; while [ ! -e go ]; do sleep 0.05; done"}

            """)
        let run = try Self.withIgnored(signal, ["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(await run.waitFor("\"line\":\"ready\""))
        run.send(signal)
        run.send(SIGUSR1)
        let deadline = ContinuousClock.now + .seconds(120)  // a hang guard only
        while !run.stdout.contains("queue.suspended"), !run.stdout.contains("workflow.finished"), run.process.isRunning,
            ContinuousClock.now < deadline
        {
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(!run.stdout.contains("task.cancelled"), "\(run.stdout)")
        run.send(SIGUSR2)
        FileManager.default.createFile(atPath: folder.url.appendingPathComponent("go").path, contents: nil)
        #expect(await run.wait() == 0, "\(run.stderr)")
        let events = try EventStream(run.stdout)
        #expect(events.finals == ["t": "task.succeeded"], "\(run.stdout)")
        // The task itself starts with the signal at its default action (issue 5).
        let ignored = try Self.mask("SigIgn:", of: "t", in: events)
        #expect(ignored & (1 << UInt64(signal - 1)) == 0, "\(run.stdout)")
    }

    /// A task starts with every signal at its default action whatever flowrun's parent left
    /// ignored, not only the four flowrun itself keeps ignored: the child sets back those found
    /// changed at the first spawn (SIGALRM, SIGUSR2 here) and SIGPIPE, which flowrun ignores.
    @Test(arguments: [SIGALRM, SIGUSR2, SIGPIPE])
    func aTaskStartsWithASignalFlowrunsParentIgnoredAtItsDefault(signal: Int32) async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              first: {shell: "true"}
              t: {needs: [first], shell: "cat /proc/self/status"}

            """)
        let run = try Self.withIgnored(signal, ["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(await run.wait() == 0, "\(run.stderr)")
        let events = try EventStream(run.stdout)
        for field in ["SigIgn:", "SigCgt:"] {
            // The standard signals (cat catches none; grep would catch SIGSEGV); glibc's own 32
            // and 33 are left as they are, in each child.
            #expect(try Self.mask(field, of: "t", in: events) & 0x7FFF_FFFF == 0, "\(field) \(run.stdout)")
        }
    }

    /// The signal mask a task printed from /proc/self/status (`SigIgn:`, `SigCgt:`), in hex there.
    static func mask(_ field: String, of task: String, in events: EventStream) throws -> UInt64 {
        let line = try #require(events.lines(of: task).first { $0.hasPrefix(field) })
        return try #require(UInt64(line.dropFirst(field.count).trimmingCharacters(in: .whitespaces), radix: 16))
    }

    /// The flowrun of every other test starts with these signals at their default action, even
    /// when the suite itself was started with them ignored (`scripts/test &` from a
    /// non-interactive sh): else each Ctrl-C test failed (`ChildSignals`).
    @Test func theTestsStartFlowrunWithTheSignalsAtTheirDefault() async throws {
        let run = try LiveRun(["SigIgn", "/proc/self/status"], in: nil, executable: "/bin/grep")
        #expect(await run.wait() == 0, "\(run.stderr)")
        let mask = try #require(UInt64(run.stdout.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespacesAndNewlines), radix: 16))
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM] {
            #expect(mask & (1 << UInt64(signal - 1)) == 0, "signal \(signal) ignored: \(run.stdout)")
        }
    }
}
