import Foundation
import Glibc
import Testing

/// Ctrl-C, SIGTERM, pause and resume against a real run.
@Suite(.serialized) struct SignalTests {
    func start(_ text: String, _ arguments: [String] = []) throws -> (LiveRun, TemporaryFolder) {
        let folder = try TemporaryFolder()
        try Data(text.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return (try LiveRun(["run", "--events", "jsonl", "flow.yaml"] + arguments, in: folder.url), folder)
    }

    func uniqueSleep() -> String { UniqueSleep.seconds() }

    @Test(arguments: [(SIGINT, Int32(130), "interrupted (SIGINT)"), (SIGTERM, Int32(143), "terminated (SIGTERM)")])
    func aSignalCancelsTheRunAndEveryTaskGetsOneFinalEvent(signal: Int32, status: Int32, reason: String) async throws {
        let seconds = uniqueSleep()
        let (run, folder) = try start(
            """
            version: 1
            concurrency: 2
            tasks:
              long: {shell: "sleep \(seconds) & sleep \(seconds)"}
              stubborn: {shell: "trap 'echo got TERM' TERM; echo ready; sleep \(seconds) & wait; sleep 0.2"}
              later: {needs: long, shell: "true"}
            """, ["--grace", "5"])
        #expect(await run.waitFor("\"task\":\"long\",\"attempt\":1"))
        #expect(await run.waitFor("\"line\":\"ready\""))  // printed once the trap is set
        run.send(signal)
        #expect(await run.wait() == status)
        #expect(run.stderr == "")
        let events = try EventStream(run.stdout)
        #expect(events.finals == ["long": "task.cancelled", "stubborn": "task.cancelled", "later": "task.skipped"])
        #expect(events.named("task.cancelled").allSatisfy { $0["reason"] as? String == reason })
        #expect(events.lines(of: "stubborn") == ["ready", "got TERM"])
        #expect(events.named("workflow.finished").first?["status"] as? String == "cancelled")
        #expect(try RunTests().processesMatching("sleep \(seconds)").isEmpty)
        withExtendedLifetime(folder) {}
    }

    @Test func aSecondInterruptKillsAtOnce() async throws {
        let seconds = uniqueSleep()
        // The sleep ignores SIGTERM; the shell says when the first interrupt's SIGTERM reached it.
        let (run, folder) = try start(
            """
            version: 1
            tasks:
              deaf: {shell: "trap '' TERM; sleep \(seconds) & trap 'echo got TERM' TERM; echo ready; wait; wait"}
            """, ["--grace", "600"])
        #expect(await run.waitFor("\"line\":\"ready\""))  // printed once the traps are set
        run.send(SIGINT)
        #expect(await run.waitFor("\"line\":\"got TERM\""))
        run.send(SIGINT)
        // Within the grace of 600 s only if the second interrupt killed at once.
        #expect(await run.wait(seconds: 120) == 130)
        #expect(try EventStream(run.stdout).finals == ["deaf": "task.cancelled"])
        // SIGKILLed, but flowrun exits at once without waiting for them to be gone.
        #expect(await Self.noneLeft(matching: "sleep \(seconds)"))
        withExtendedLifetime(folder) {}
    }

    @Test func pauseHoldsNewTasksAndResumeStartsThem() async throws {
        let (run, folder) = try start(
            """
            version: 1
            concurrency: 1
            tasks:
              first: {shell: "while [ ! -e go ]; do sleep 0.05; done"}
              second: {shell: "true"}
            """)
        #expect(await run.waitFor("\"task\":\"first\",\"attempt\":1"))
        run.send(SIGUSR1)
        #expect(await run.waitFor("queue.suspended"))
        FileManager.default.createFile(atPath: folder.url.appendingPathComponent("go").path, contents: nil)
        #expect(await run.waitFor("\"task.succeeded\",\"task\":\"first\""))
        try? await Task.sleep(for: .milliseconds(300))  // a slower machine only makes this check weaker
        #expect(!run.stdout.contains("\"task\":\"second\",\"attempt\""))
        run.send(SIGUSR2)
        #expect(await run.wait() == 0)
        let events = try EventStream(run.stdout)
        let resumed = try #require(events.events.firstIndex { $0.name == "queue.resumed" })
        #expect(try #require(events.index(of: "task.started", task: "second")) > resumed)
    }

    // MARK: Every signal, at any moment

    /// Starts flowrun on a file named FIFO, or writing its events to one, with nobody at the
    /// other end: it blocks in open(2), where a signal must still end it.
    @Test(arguments: [
        ("FILE", SIGINT, Int32(130)), ("FILE", SIGHUP, Int32(129)), ("--events-file", SIGTERM, Int32(143)),
        ("--events-file", SIGQUIT, Int32(131)),
    ])
    func aSignalEndsFlowrunBlockedOpeningAFifo(fifoAs: String, signal: Int32, status: Int32) async throws {
        let folder = try TemporaryFolder()
        try Data("version: 1\ntasks:\n  t: {shell: \"true\"}\n".utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        #expect(mkfifo(folder.url.appendingPathComponent("fifo").path, 0o600) == 0)
        let arguments = fifoAs == "FILE" ? ["run", "fifo"] : ["run", "--events-file", "fifo", "flow.yaml"]
        let run = try LiveRun(arguments, in: folder.url)
        #expect(await run.waitForSignalThread())
        run.send(signal)
        #expect(await run.wait(seconds: 120) == status)
        #expect(run.process.terminationReason == .exit)
        #expect(run.stdout == "")
    }

    /// The pids a task wrote to `file` in `folder`, once it has written them.
    func pids(in folder: TemporaryFolder, _ file: String, count: Int) async throws -> [pid_t] {
        let path = folder.url.appendingPathComponent(file).path
        let deadline = ContinuousClock.now + .seconds(600)  // a hang guard only
        while ContinuousClock.now < deadline {
            let pids = (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").compactMap { pid_t($0) } ?? []
            if pids.count >= count { return pids }
            try? await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("\(file) was not written")
        return []
    }

    /// Whether `pid` has exited (gone, or a zombie nobody reaped yet).
    static func isGone(_ pid: pid_t) -> Bool {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count
        else { return true }
        return stat[close + 2] == UInt8(ascii: "Z")
    }

    /// Waits, for at most 120 s (a hang guard), until no live process's command line contains `text`.
    static func noneLeft(matching text: String) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            if (try? RunTests().processesMatching(text).isEmpty) == true { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Waits, for at most `seconds` (a hang guard), until every one of `pids` has exited.
    static func allGone(_ pids: [pid_t], seconds: Double = 120) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if pids.allSatisfy(isGone) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return pids.allSatisfy(isGone)
    }

    @Test func aHangUpCancelsTheRunAndReachesTheTasks() async throws {
        // The terminal closed (or ssh dropped): the tasks, in groups of their own, are not told
        // by the kernel; flowrun tells them, cancels, and no process of theirs stays behind.
        let seconds = uniqueSleep()
        let (run, folder) = try start(
            """
            version: 1
            concurrency: 3
            tasks:
              plain: {shell: "echo $$ >> pids; sleep \(seconds) & echo $! >> pids; wait"}
              hangs-up: {shell: "trap 'echo got HUP' HUP; trap '' TERM; echo $$ >> pids; sleep \(seconds) & wait"}
              deaf: {shell: "trap '' HUP TERM; echo $$ >> pids; sleep \(seconds)"}
              later: {needs: plain, shell: "true"}
            """, ["--grace", "1"])
        let pids = try await pids(in: folder, "pids", count: 4)  // written once the traps are set
        run.send(SIGHUP)
        #expect(await run.wait() == 129)
        let events = try EventStream(run.stdout)
        #expect(events.finals == ["plain": "task.cancelled", "hangs-up": "task.cancelled", "deaf": "task.cancelled", "later": "task.skipped"])
        #expect(events.named("task.cancelled").allSatisfy { $0["reason"] as? String == "hung up (SIGHUP)" })
        #expect(events.lines(of: "hangs-up") == ["got HUP"])
        #expect(await Self.allGone(pids))
        let left = try RunTests().processesMatching("sleep \(seconds)")
        #expect(left.isEmpty, "\(left) \((try? RunTests().processesMatching("sleep \(seconds)")) ?? [])")
    }

    @Test func quitKillsAtOnce() async throws {
        let seconds = uniqueSleep()
        let (run, folder) = try start(
            """
            version: 1
            tasks:
              deaf: {shell: "trap '' TERM; echo $$ > pids; sleep \(seconds) & echo $! >> pids; wait; wait"}
            """, ["--grace", "600"])
        let pids = try await pids(in: folder, "pids", count: 2)  // written once the trap is set
        run.send(SIGQUIT)
        #expect(await run.wait(seconds: 120) == 131)
        #expect(try EventStream(run.stdout).finals == ["deaf": "task.cancelled"])
        #expect(await Self.allGone(pids))
    }

    @Test func theTasksOfAKilledFlowrunDieWithIt() async throws {
        let seconds = uniqueSleep()
        let (run, folder) = try start(
            """
            version: 1
            tasks:
              parent: {shell: "echo $$ > pids; sleep \(seconds) & echo $! >> pids; wait"}
            """)
        let pids = try await pids(in: folder, "pids", count: 2)
        run.send(SIGKILL)
        _ = await run.wait()
        #expect(await Self.allGone(pids))
    }

    /// `pkill -9 flowrun` and `pkill -9 -f 'flowrun ... flow.yaml'` kill every process whose name
    /// or command line matches: the watchdog, a fork of flowrun, had both, so it died with flowrun
    /// and the task outlived the run. Here flowrun and its children that such a pkill would match
    /// (its command line, or "flowrun" in the name) are killed at once; no other test's flowrun.
    @Test func theTasksDieWhenAPkillOfFlowrunMatchesEverythingNamedFlowrun() async throws {
        let seconds = uniqueSleep()
        let (run, folder) = try start(
            """
            version: 1
            tasks:
              parent: {shell: "echo $$ > pids; sleep \(seconds) & echo $! >> pids; wait"}
            """)
        let pids = try await pids(in: folder, "pids", count: 2)
        let flowrun = run.process.processIdentifier
        let commandLine = FileManager.default.contents(atPath: "/proc/\(flowrun)/cmdline")
        let matched = ChildProcesses.of(flowrun).filter { child in
            FileManager.default.contents(atPath: "/proc/\(child)/cmdline") == commandLine
                || (FileManager.default.contents(atPath: "/proc/\(child)/comm").map { String(decoding: $0, as: UTF8.self).contains("flowrun") } ?? false)
        }
        for pid in [flowrun] + matched { kill(pid, SIGKILL) }
        #expect(await Self.allGone(pids, seconds: 30), "\(matched.count) of flowrun's children matched")
        // Before the wait: Foundation sees flowrun's end only once every holder of the socket it
        // gave flowrun has closed it, the task's processes included.
        for pid in pids where !Self.isGone(pid) { kill(pid, SIGKILL) }
        _ = await run.wait()
    }

    /// A process that left its task's group (`setsid`) while the task's shell, its parent, still
    /// runs: the watchdog killed only the groups, so it outlived a flowrun killed with SIGKILL
    /// (the spec: no task process outlives flowrun, even when flowrun itself is killed).
    @Test func aProcessThatLeftItsGroupDiesWithAKilledFlowrunWhileItsParentRuns() async throws {
        let seconds = uniqueSleep()
        let (run, folder) = try start(
            """
            version: 1
            tasks:
              parent: {shell: "echo $$ > pids; setsid sleep \(seconds) & echo $! >> pids; wait"}
            """)
        let pids = try await pids(in: folder, "pids", count: 2)
        run.send(SIGKILL)
        #expect(await Self.allGone(pids, seconds: 30))
        // None left behind if it fails (the sleep holds flowrun's output open until it dies).
        for pid in pids where !Self.isGone(pid) { kill(pid, SIGKILL) }
        _ = await run.wait()
    }

    /// A daemon made with a double fork (`(setsid sleep &)`, as `daemon(3)` does): its parent
    /// exited at once, so it was flowrun's child (the subreaper's) and in no task's group; a
    /// SIGKILLed flowrun's watchdog had nothing to find it by, and it outlived the run
    /// (scripts/faultpeer.py). The watchdog now finds it by the run's mark in its environment.
    @Test func aDoubleForkedDaemonDiesWithAKilledFlowrun() async throws {
        let seconds = uniqueSleep()
        // `daemonize` ends once the daemon has left its group (it opens `ready` after setsid);
        // its subshell, the daemon's parent, ended before it.
        let (run, folder) = try start(
            """
            version: 1
            tasks:
              daemonize:
                shell: |
                  mkfifo ready
                  (setsid sh -c 'echo $$ > daemon; echo > ready; exec sleep \(seconds)' </dev/null >/dev/null 2>&1 &)
                  read line < ready
              busy: {needs: daemonize, shell: "echo $$ > busy; sleep \(seconds)"}
            """)
        let pids = try await pids(in: folder, "daemon", count: 1) + pids(in: folder, "busy", count: 1)
        run.send(SIGKILL)
        // Before waiting for flowrun: Foundation sees its end only once every process holding
        // what it inherited from flowrun is gone, and the daemon would hold the test up.
        #expect(await Self.allGone(pids, seconds: 30))
        for pid in pids where !Self.isGone(pid) { kill(pid, SIGKILL) }
        _ = await run.wait()
    }

    @Test func aSignalEndsFlowrunWritingToAStdoutNobodyReads() async throws {
        // The task writes more than a pipe holds; flowrun's writes to stdout block, at the end
        // of the run (or, if flowrun holds the task up meanwhile, in its middle: then no
        // `done`, and the signal goes after the hang guard), and Ctrl-C must still end it.
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            tasks:
              loud: {shell: "head -c 3000000 /dev/zero | tr '\\\\0' x | fold -w 100; touch done"}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let unread = Pipe()
        let run = try LiveRun(["run", "--grace", "0", "--events", "plain", "flow.yaml"], in: folder.url, standardOutput: unread)
        let done = folder.url.appendingPathComponent("done").path
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: done), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        run.send(SIGINT)
        #expect(await run.wait(seconds: 120) == 130)
        withExtendedLifetime(unread) {}
    }

    /// Ctrl-C with stdout a full pipe that nobody reads: the tasks' groups are killed and flowrun
    /// exits without waiting for the grace period and the last words (65 s here) to write what
    /// nobody will read.
    @Test func ctrlCEndsFlowrunAtOnceWhenStdoutIsAFullPipeNobodyReads() async throws {
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            tasks:
              quiet: {priority: high, shell: "echo $$ >> pids; exec sleep 1000"}
              loud: {shell: "echo $$ >> pids; head -c 3000000 /dev/zero | tr '\\\\0' x | fold -w 100; exec sleep 1000"}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let unread = Pipe()
        let run = try LiveRun(
            ["run", "--grace", "60", "--concurrency", "2", "--events", "plain", "flow.yaml"], in: folder.url, standardOutput: unread)
        _ = try await pids(in: folder, "pids", count: 1)
        // Until the pipe is full (a hang guard only).
        let deadline = ContinuousClock.now + .seconds(600)
        var output = pollfd(fd: unread.fileHandleForWriting.fileDescriptor, events: Int16(POLLOUT), revents: 0)
        while poll(&output, 1, 0) == 1, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        run.send(SIGINT)
        // Far less than the 65 s flowrun would wait for the grace period and its last words.
        #expect(await run.wait(seconds: 30) == 130)
        let pids = try await pids(in: folder, "pids", count: 1)
        #expect(await Self.allGone(pids))
        withExtendedLifetime(unread) {}
    }
}
