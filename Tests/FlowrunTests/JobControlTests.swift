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
    @Test func ctrlZStopsTheTasksAndFgContinuesThem() async throws {
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            tasks:
              spin: {shell: 'echo $$ > pid; while [ ! -e go ]; do sleep 0.01; done; echo went'}
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
        FileManager.default.createFile(atPath: folder.url.appendingPathComponent("go").path, contents: nil)
        #expect(await run.wait() == 0)
        #expect(run.stdout.contains("[spin] | went\n"), "\(run.stdout)")
    }
}
