import Foundation
import Glibc
import Testing

/// Ctrl-Z and `fg` against a real run, as they work on `make`: the terminal stops flowrun's
/// group, and flowrun's tasks, in groups of their own, must stop with it.
@Suite(.serialized) struct JobControlTests {
    /// The state letter of `pid` in /proc (`T` stopped, `S` sleeping...), nil once it is gone.
    static func state(_ pid: pid_t) -> Character? {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count
        else { return nil }
        return Character(UnicodeScalar(stat[close + 2]))
    }

    /// Waits, for at most 60 s (a hang guard), until `condition` holds.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    /// SIGTSTP (Ctrl-Z) stopped flowrun alone: its tasks, in process groups of their own that
    /// the terminal does not signal, went on running in the background, as `make`'s never do.
    /// Now they stop with it, and SIGCONT (`fg`, `bg`) continues them too.
    ///
    /// The task waits in `read` on a FIFO, a builtin: a loop of `sleep`s could be stopped
    /// between dash's vfork and its exec, leaving the shell in D (waiting for a child that is
    /// stopped) rather than T, though nothing of the task runs (seen under load).
    @Test func ctrlZStopsTheTasksAndFgContinuesThem() async throws {
        let folder = try TemporaryFolder()
        let gate = folder.url.appendingPathComponent("gate").path
        #expect(mkfifo(gate, 0o600) == 0)
        try Data(
            """
            version: 1
            tasks:
              spin: {shell: 'echo $$ > pid; read line < gate; echo went'}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let run = try LiveRun(["run", "--events", "plain", "--no-record", "flow.yaml"], in: folder.url)
        let pid = try #require(try await SignalTests().pids(in: folder, "pid", count: 1).first)
        #expect(await run.waitForSignalThread())
        let flowrun = run.process.processIdentifier
        run.send(SIGTSTP)
        #expect(
            await Self.eventually { Self.state(flowrun) == "T" && Self.state(pid) == "T" },
            "flowrun \(String(describing: Self.state(flowrun))), task \(String(describing: Self.state(pid)))")
        run.send(SIGCONT)
        #expect(await Self.eventually { Self.state(flowrun) != "T" && Self.state(pid) != "T" })
        // Once the continued shell has the FIFO open for its `read`.
        var writer: Int32 = -1
        #expect(
            await Self.eventually {
                writer = open(gate, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                return writer >= 0
            })
        #expect(write(writer, "go\n", 3) == 3)
        close(writer)
        #expect(await run.wait() == 0)
        #expect(run.stdout.contains("[spin] | went\n"), "\(run.stdout)")
    }

    /// In an orphaned process group (flowrun's parent in another session: `setsid`, or a
    /// `nohup ... &` whose shell is gone) nobody would continue a stopped flowrun, and the
    /// kernel discards a SIGTSTP there rather than stop it. flowrun does the same; when it
    /// stopped itself instead, it stayed stopped for good (seen: a `setsid` run).
    @Test func ctrlZIsIgnoredWhereNobodyCouldContinueFlowrun() async throws {
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            tasks:
              spin: {shell: 'echo $$ > pid; while [ ! -e go ]; do sleep 0.01; done; echo went'}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        // setsid(1), not a group leader under sh, execs flowrun
        // as the leader of a new session: its parent, sh, is in another one.
        let command = "setsid \"$0\" run --events plain --no-record flow.yaml; echo \"status $?\""
        let run = try LiveRun(["-c", command, FlowrunBinary.url.path], in: folder.url, executable: "/bin/sh")
        let pid = try #require(try await SignalTests().pids(in: folder, "pid", count: 1).first)
        let flowrun = try #require(Self.parent(of: pid))
        kill(flowrun, SIGTSTP)
        FileManager.default.createFile(atPath: folder.url.appendingPathComponent("go").path, contents: nil)
        // It either ends, or is seen stopped (then continued, so that the test ends).
        #expect(await Self.eventually { Self.state(flowrun) == nil || Self.state(flowrun) == "Z" || Self.state(flowrun) == "T" })
        let stopped = Self.state(flowrun) == "T"
        if stopped { kill(flowrun, SIGCONT) }
        #expect(!stopped, "flowrun stopped itself in an orphaned process group")
        #expect(await run.wait() == 0)
        #expect(run.stdout.contains("[spin] | went\n") && run.stdout.contains("status 0\n"), "\(run.stdout)")
    }

    /// The parent of `pid`, from /proc.
    static func parent(of pid: pid_t) -> pid_t? {
        guard let status = FileManager.default.contents(atPath: "/proc/\(pid)/status") else { return nil }
        let line = String(decoding: status, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("PPid:") }
        return line.flatMap { pid_t($0.dropFirst(5).trimmingCharacters(in: .whitespaces)) }
    }
}
