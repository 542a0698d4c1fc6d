import FlowActions
import FlowEngine
import FlowLoading
import FlowModel
import FlowPlanning
import Foundation
import Glibc
import Testing

/// `ShellRunner` on its own: real processes, one attempt at a time, without the engine.
@Suite struct ShellRunnerTests {
    /// What one attempt reported: its output lines, in order per stream, and its result.
    struct Attempt {
        var stdout: [String] = []
        var stderr: [String] = []
        var result: AttemptResult?
    }

    /// A temporary folder, removed by the caller.
    static func makeFolder() throws -> String {
        let path = NSTemporaryDirectory() + "flowrun-shell-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The tasks of `yaml`, planned as a workflow in `folder`.
    static func tasks(_ yaml: String, in folder: String) throws -> [PlannedTask] {
        let loaded = WorkflowLoader.decode(Array(yaml.utf8), file: "w.yaml", directory: folder, defaultName: "w")
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        var options = PlanningOptions()
        options.processEnvironment = ProcessInfo.processInfo.environment
        let workflow = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(workflow, options: options).plan)
        return plan.tasks
    }

    /// Runs one attempt of `task` on `runner`, or on a runner with a loop of its own, ended after.
    static func run(_ task: PlannedTask, runner: ShellRunner? = nil) async -> Attempt {
        let loop = runner == nil ? OutputLoop() : nil
        defer { loop?.end() }
        let runner = runner ?? ShellRunner(loop: loop!)
        let attempt = LockedBox(Attempt())
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let events = AttemptEvents(
                output: { stream, lines in
                    attempt.update { stream == .stdout ? $0.stdout.append(contentsOf: lines) : $0.stderr.append(contentsOf: lines) }
                },
                progress: { _, _, _ in }
            )
            _ = runner.startAttempt(of: task, attempt: 1, events: events) { result in
                attempt.update { $0.result = result }
                done.resume()
            }
        }
        return attempt.value
    }

    @Test func anArgvCommandIsFoundOnPathAndItsOutputArrivesLineByLine() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              list: {shell: [printf, "one\\ntwo\\nlast without newline"]}
              script: {shell: "echo out; echo err >&2; exit 3"}
            """, in: folder)
        let list = await Self.run(tasks[0])
        #expect(list.stdout == ["one", "two", "last without newline"])
        #expect(list.result == .succeeded)
        let script = await Self.run(tasks[1])
        #expect(script.stdout == ["out"])
        #expect(script.stderr == ["err"])
        #expect(script.result == .failed(reason: "exited with status 3", exitCode: 3))
    }

    @Test func aChildSeesFlowrunsEnvironmentWithTheTasksVariablesOverItEachNameOnce() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              show: {env: {BETA: task, GAMMA: "3", FLOWRUN_TASK: mine}, shell: [env]}
            """, in: folder)
        let loop = OutputLoop()
        defer { loop.end() }
        let runner = ShellRunner(loop: loop, processEnvironment: ["ALPHA": "1", "BETA": "2", "PATH": "/usr/bin:/bin", "ZETA": "last"])
        let shown = await Self.run(tasks[0], runner: runner)
        #expect(shown.result == .succeeded)
        // The task's BETA over flowrun's, and flowrun's own FLOWRUN_TASK over the task's.
        #expect(
            shown.stdout.sorted() == [
                "ALPHA=1", "BETA=task", "FLOWRUN_TASK=show", "FLOWRUN_WORKFLOW_DIR=\(folder)", "GAMMA=3", "PATH=/usr/bin:/bin", "ZETA=last",
            ])
    }

    @Test func aTaskRunsInItsWorkdirWhetherOrNotThatIsFlowrunsOwnFolder() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The child of a task whose workdir is flowrun's own folder changes no folder.
        let own = FileManager.default.currentDirectoryPath
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              here: {workdir: "\(own)", shell: [/bin/pwd]}
              there: {shell: [/bin/pwd]}
              again: {workdir: "\(own)", shell: [/bin/pwd]}
            """, in: folder)
        var printed: [[String]] = []
        for task in tasks { printed.append(await Self.run(task).stdout) }
        let physical = try #require(realpath(folder, nil))
        defer { free(physical) }
        #expect(printed == [[own], [String(cString: physical)], [own]])
    }

    @Test func theTasksOwnPathDecidesWhichProgramRuns() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // `check` is `true` in one folder and `false` in the other. Links, not written scripts:
        // a file just written can fail to exec (ETXTBSY) while parallel tests spawn children.
        for (name, target) in [("passes", "/bin/true"), ("fails", "/bin/false")] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: "\(folder)/\(name)/check", withDestinationPath: target)
        }
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              a: {env: {PATH: "\(folder)/passes:/usr/bin:/bin"}, shell: [check]}
              b: {env: {PATH: "\(folder)/fails:/usr/bin:/bin"}, shell: [check]}
              c: {env: {PATH: "\(folder)/passes:/usr/bin:/bin"}, shell: [check]}
            """, in: folder)
        let loop = OutputLoop()
        defer { loop.end() }
        let runner = ShellRunner(loop: loop)
        var results: [AttemptResult?] = []
        for task in tasks { results.append(await Self.run(task, runner: runner).result) }
        #expect(results == [.succeeded, .failed(reason: "exited with status 1", exitCode: 1), .succeeded])
    }

    @Test func aListCommandIsLookedUpOnTheTasksPathOnlyAsTheShellWouldBe() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: "\(folder)/tools", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/tools/check", withDestinationPath: "/bin/true")
        // `ls` is on flowrun's PATH but not on the task's: as in `sh -c ls`, it is not found.
        // A relative folder on PATH is taken from the task's workdir, as execvp would in the child.
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              only-tools: {env: {PATH: "\(folder)/tools"}, shell: [ls]}
              relative: {env: {PATH: "tools"}, shell: [check]}
            """, in: folder)
        #expect(await Self.run(tasks[0]).result == .failed(reason: "cannot run 'ls': No such file or directory", exitCode: nil))
        #expect(await Self.run(tasks[1]).result == .succeeded)
    }

    @Test func aProgramThatMovesBetweenTasksIsFoundAgain() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["first", "second"] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/second/check", withDestinationPath: "/bin/true")
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              check: {env: {PATH: "\(folder)/first:\(folder)/second"}, shell: [check]}
            """, in: folder)
        let loop = OutputLoop()
        defer { loop.end() }
        let runner = ShellRunner(loop: loop)
        #expect(await Self.run(tasks[0], runner: runner).result == .succeeded)
        // Remembered in `second`; moved to `first`, as an install step might.
        try FileManager.default.moveItem(atPath: "\(folder)/second/check", toPath: "\(folder)/first/check")
        #expect(await Self.run(tasks[0], runner: runner).result == .succeeded)
    }

    /// The lookup keeps the last program found: a task that runs another program (or the same
    /// name on another PATH) between two is not given the first one's path, and a program that
    /// moves after several runs from memory is found again.
    @Test func theLastProgramFoundIsRememberedByNameAndPathAndForgottenWhenItMoves() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["first", "second", "other"] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/second/check", withDestinationPath: "/bin/true")
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/second/refuse", withDestinationPath: "/bin/false")
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/other/check", withDestinationPath: "/bin/false")
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              check: {env: {PATH: "\(folder)/first:\(folder)/second"}, shell: [check]}
              refuse: {env: {PATH: "\(folder)/first:\(folder)/second"}, shell: [refuse]}
              elsewhere: {env: {PATH: "\(folder)/other"}, shell: [check]}
            """, in: folder)
        let loop = OutputLoop()
        defer { loop.end() }
        let runner = ShellRunner(loop: loop)
        let exit1 = AttemptResult.failed(reason: "exited with status 1", exitCode: 1)
        var results: [AttemptResult?] = []
        for index in [0, 0, 0, 1, 0, 2, 0] { results.append(await Self.run(tasks[index], runner: runner).result) }
        #expect(results == [.succeeded, .succeeded, .succeeded, exit1, .succeeded, exit1, .succeeded])
        try FileManager.default.moveItem(atPath: "\(folder)/second/check", toPath: "\(folder)/first/check")
        results = []
        for index in [0, 0, 2, 0] { results.append(await Self.run(tasks[index], runner: runner).result) }
        #expect(results == [.succeeded, .succeeded, exit1, .succeeded])
        // Gone from both folders: not found, rather than run from memory.
        try FileManager.default.removeItem(atPath: "\(folder)/first/check")
        #expect(await Self.run(tasks[0], runner: runner).result == .failed(reason: "cannot run 'check': No such file or directory", exitCode: nil))
    }

    @Test func aProcessThatLeftTheGroupDoesNotHoldTheTaskOpen() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // setsid: a new session, out of the task's group, with the task's stdout; the script
        // waits until the sleep is in it (else the group kill at the task's end could reach it
        // first). Had the task waited for the sleep, it would be gone by the end the runner
        // reports; the hang guard kills it after 120 s, which makes that so.
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              leaves: {shell: "setsid sh -c 'echo $$ > escaped; exec sleep 300' & until [ -s escaped ]; do sleep 0.01; done; cat escaped; echo done"}
            """, in: folder)
        let escaped = LockedBox<pid_t?>(nil)
        let hangGuard = DispatchWorkItem { if let pid = escaped.value { kill(pid, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: hangGuard)
        let loop = OutputLoop()
        defer { loop.end() }
        let runner = ShellRunner(loop: loop)
        let attempt = LockedBox(Attempt())
        let aliveAtEnd = LockedBox<Bool?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let events = AttemptEvents(
                output: { stream, lines in
                    if stream == .stdout, escaped.value == nil, let pid = lines.first.flatMap({ pid_t($0) }) { escaped.update { $0 = pid } }
                    attempt.update { stream == .stdout ? $0.stdout.append(contentsOf: lines) : $0.stderr.append(contentsOf: lines) }
                },
                progress: { _, _, _ in }
            )
            _ = runner.startAttempt(of: tasks[0], attempt: 1, events: events) { result in
                attempt.update { $0.result = result }
                aliveAtEnd.update { $0 = escaped.value.map { kill($0, 0) == 0 && !Self.isZombie($0) } }
                done.resume()
            }
        }
        hangGuard.cancel()
        if let pid = escaped.value { kill(pid, SIGKILL) }
        #expect(attempt.value.result == .succeeded)
        #expect(attempt.value.stdout.last == "done")
        #expect(aliveAtEnd.value == true, "the task waited for the escaped sleep")
    }

    @Test func aChildThatNeverStopsWritingDoesNotStarveTheOthers() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              floods: {shell: [yes]}
              quick: {shell: [echo, quick]}
            """, in: folder)
        let loop = OutputLoop()
        defer { loop.end() }
        let runner = ShellRunner(loop: loop)
        let flood = runner.startAttempt(
            of: tasks[0], attempt: 1,
            events: AttemptEvents(output: { _, _ in }, progress: { _, _, _ in }), completion: { _ in })
        defer { flood.kill() }
        // The flood is stopped only after the quick task ended, or by this hang guard: on a
        // queue of its own, not on the threads the async tests share, which can all be busy.
        let floodStillRunning = LockedBox(true)
        let hangGuard = DispatchWorkItem {
            floodStillRunning.update { $0 = false }
            flood.kill()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: hangGuard)
        let quick = await Self.run(tasks[1], runner: runner)
        hangGuard.cancel()
        #expect(quick.stdout == ["quick"])
        #expect(floodStillRunning.value, "the quick task ended only once the flood was stopped")
    }

    /// Output of many pipe buffers, on both streams, read one report of epoll at a time from
    /// pipes left blocking: every line arrives, in order, and the task ends.
    @Test func outputOfManyPipeBuffersArrivesWholeAndInOrderOnBothStreams() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              long: {shell: "seq 1 150000; seq 1 150000 >&2; printf tail"}
            """, in: folder)
        let attempt = await Self.run(tasks[0])
        let numbers = (1...150_000).map(String.init)
        #expect(attempt.stdout == numbers + ["tail"])
        #expect(attempt.stderr == numbers)
        #expect(attempt.result == .succeeded)
    }

    @Test func aMissingProgramFailsWithItsName() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              missing: {shell: [no-such-program-flowrun]}
            """, in: folder)
        let attempt = await Self.run(tasks[0])
        #expect(attempt.result == .failed(reason: "cannot run 'no-such-program-flowrun': No such file or directory", exitCode: nil))
    }

    @Test func whatTheScriptLeftRunningInItsGroupDiesWithIt() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The background sleep keeps no pipe open, so only the group kill can end it.
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              leaves: {shell: "sleep 1000 >/dev/null 2>&1 & echo $!"}
            """, in: folder)
        let attempt = await Self.run(tasks[0])
        #expect(attempt.result == .succeeded)
        let pid = try #require(attempt.stdout.first.flatMap { pid_t($0) })
        var gone = false
        let deadline = ContinuousClock.now + .seconds(600)  // a hang guard only
        while !gone && ContinuousClock.now < deadline {
            // Reaped by init once killed; until then it may briefly be a zombie.
            gone = kill(pid, 0) != 0 || Self.isZombie(pid)
            if !gone { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(gone, "sleep \(pid) outlived its task")
    }

    /// SIGTERM to a stopped process stays pending until it runs again: terminate() sends SIGCONT.
    @Test func aStoppedProcessActsOnTerminate() async throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tasks = try Self.tasks(
            """
            version: 1
            tasks:
              stops: {shell: "echo $$; kill -STOP $$; sleep 1000"}
            """, in: folder)
        let output = LockedBox<[String]>([])
        let (ends, ended) = AsyncStream<AttemptResult>.makeStream()
        let loop = OutputLoop()
        defer { loop.end() }
        let attempt = ShellRunner(loop: loop).startAttempt(
            of: tasks[0], attempt: 1, events: AttemptEvents(output: { _, lines in output.update { $0 += lines } }, progress: { _, _, _ in })
        ) { result in
            ended.yield(result)
            ended.finish()
        }
        var stopped = false
        let deadline = ContinuousClock.now + .seconds(600)  // a hang guard only
        while !stopped && ContinuousClock.now < deadline {
            stopped = output.value.first.flatMap { pid_t($0) }.map { Self.state(of: $0) == "T" } ?? false
            if !stopped { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(stopped, "the shell did not stop itself")
        attempt.terminate()
        // A hang guard only: SIGKILL ends even a stopped process.
        // On a queue of its own: the threads the async tests share can all be busy.
        let guardFired = LockedBox(false)
        let hangGuard = DispatchWorkItem {
            guardFired.update { $0 = true }
            attempt.kill()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: hangGuard)
        var results = ends.makeAsyncIterator()
        let result = await results.next()
        hangGuard.cancel()
        #expect(!guardFired.value, "the stopped process never acted on SIGTERM")
        #expect(result == .failed(reason: "killed by signal SIGTERM (15)", exitCode: nil))
    }

    static func isZombie(_ pid: pid_t) -> Bool {
        state(of: pid) == "Z"
    }

    /// The state letter of /proc/<pid>/stat: R, S, T (stopped), Z (zombie)...
    static func state(of pid: pid_t) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(close, offsetBy: 2)]
    }
}

/// A value shared with the runner's callbacks, which arrive on other threads.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }

    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}
