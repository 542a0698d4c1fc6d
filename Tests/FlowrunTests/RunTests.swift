import Foundation
import Testing

/// Runs real workflows with real processes and asserts what the event stream shows.
@Suite struct RunTests {
    /// Writes `text` as `flow.yaml` in a new folder and runs `flowrun run --events jsonl flow.yaml arguments...`.
    func run(
        _ text: String, _ arguments: [String] = [], environment: [String: String] = [:]
    ) async throws
        -> (result: FlowrunBinary.Result, events: EventStream, folder: TemporaryFolder)
    {
        let folder = try TemporaryFolder()
        try Data(text.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"] + arguments, in: folder.url, environment: environment)
        return (result, try EventStream(result.stdout), folder)
    }

    @Test func globalAndQueueLimitsHoldAtEveryInstant() async throws {
        // The first three free tasks wait for each other, so that three run at once however
        // slowly they start; the later ones find three markers at once.
        var text = "version: 1\nconcurrency: 3\nqueues: {serial: {concurrency: 1}}\ntasks:\n"
        let together = "touch $FLOWRUN_TASK.up; until [ $(ls *.up | wc -l) -ge 3 ]; do sleep 0.01; done"
        for index in 0..<6 { text += "  free\(index): {shell: '\(together)'}\n" }
        for index in 0..<3 { text += "  one\(index): {queue: serial, shell: sleep 0.15}\n" }
        let (result, events, _) = try await run(text)
        #expect(result.status == 0)
        #expect(events.peakExecuting() == 3)
        #expect(events.peakExecuting(among: ["one0", "one1", "one2"]) == 1)
        #expect(events.named("task.succeeded").count == 9)
    }

    /// Writes `workflow` as `flow.yaml` in a new folder and runs `flowrun run --events EVENTS
    /// flow.yaml` there from python3, which first sets `ignored` (names from Python's `signal`
    /// module) to SIG_IGN, as a parent may pass signals on ignored. (python3, not sh: dash does
    /// not pass an ignored SIGCHLD on to what it execs.)
    func runWithSignalsIgnored(_ ignored: [String], _ workflow: String, events: String) async throws -> (status: Int32, stdout: String) {
        let folder = try TemporaryFolder()
        try Data(workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import os, signal, sys
            for number in (\(ignored.map { "signal.\($0)" }.joined(separator: ", ")),): signal.signal(number, signal.SIG_IGN)
            os.execv(sys.argv[1], sys.argv[1:])
            """, FlowrunBinary.url.path, "run", "--events", events, "flow.yaml",
        ]
        process.currentDirectoryURL = folder.url
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return try await offThePool {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
    }

    @Test func aFailureIsReportedEvenWhenFlowrunStartsWithSigchldIgnored() async throws {
        // A parent may pass SIGCHLD on ignored; then the kernel reaps children at once and their
        // status is lost, and a failing task looked as if it succeeded.
        let (status, text) = try await runWithSignalsIgnored(["SIGCHLD"], "version: 1\ntasks:\n  fails: {shell: \"exit 3\"}\n", events: "plain")
        #expect(status == 1, "\(text)")
        #expect(text.contains("[fails] failed in"), "\(text)")
        #expect(text.contains("exited with status 3"), "\(text)")
    }

    @Test func aTaskStartsWithNoSignalBlockedOrIgnored() async throws {
        // flowrun blocks SIGINT, SIGTERM, SIGUSR1 and SIGUSR2 and ignores SIGPIPE for itself, and
        // its own parent may pass signals on ignored (nohup ignores SIGHUP); a child gets none
        // of that. A realtime signal too: the launcher looks those up once and resets only them.
        let (status, text) = try await runWithSignalsIgnored(
            ["SIGHUP", "SIGQUIT", "SIGRTMIN + 3"],
            "version: 1\ntasks:\n  masks: {shell: [grep, -E, '^Sig(Blk|Ign):', /proc/self/status]}\n", events: "jsonl")
        #expect(status == 0, "\(text)")
        let masks = try EventStream(text).lines(of: "masks")
        #expect(masks.first == "SigBlk:\t0000000000000000")
        // Signals 32 and 33 are glibc's own (thread cancellation, setxid): glibc's posix_spawn
        // leaves them ignored in every child, as does the launcher.
        let ignored = try #require(UInt64(masks.last?.split(separator: "\t").last ?? "", radix: 16), "\(masks)")
        let glibcOwn: UInt64 = 0b11 << 31
        #expect(ignored & ~glibcOwn == 0, "\(masks)")
    }

    @Test func aProgramThatCannotBeExecutedFailsWithTheReason() async throws {
        // The exec fails in the child, after the fork: its errno still reaches the task.failed event.
        let folder = try TemporaryFolder()
        try Data("echo hi\n".utf8).write(to: folder.url.appendingPathComponent("not-executable.sh"))
        try Data([0x7F, 0x45, 0x4C, 0x46, 0, 0, 0, 0]).write(to: folder.url.appendingPathComponent("broken"))
        chmod(folder.url.appendingPathComponent("broken").path, 0o755)
        try Data(
            """
            version: 1
            fail_fast: false
            tasks:
              plain: {shell: [./not-executable.sh]}
              garbled: {shell: [./broken]}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        let events = try EventStream(result.stdout)
        #expect(result.status == 1)
        let reasons = Dictionary(uniqueKeysWithValues: events.named("task.failed").map { ($0.task ?? "", $0["reason"] as? String) })
        #expect(reasons["plain"] == "cannot run './not-executable.sh': Permission denied")
        #expect(reasons["garbled"] == "cannot run './broken': Exec format error")
    }

    @Test(arguments: ["1", "2"])
    func tasksThatCannotStartDoNotStallTheRun(jobs: String) async throws {
        // Such a task ends within its operation's start, on the output loop's queue, and the
        // next task's start is queued there from inside it; with no child running, nothing
        // else would end the loop's wait.
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            fail_fast: false
            tasks:
              a: {shell: [./missing-a]}
              b: {shell: [./missing-b]}
              c: {shell: [./missing-c]}
              d: {shell: [true]}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let run = try LiveRun(["run", "-j", jobs, "--events", "jsonl", "flow.yaml"], in: folder.url)
        let status = await run.wait(seconds: 120)
        #expect(status == 1, "\(run.stdout)\(run.stderr)")
        let events = try EventStream(run.stdout)
        #expect(events.finals == ["a": "task.failed", "b": "task.failed", "c": "task.failed", "d": "task.succeeded"])
    }

    @Test func jOverridesTheFile() async throws {
        var text = "version: 1\nconcurrency: 4\ntasks:\n"
        for index in 0..<4 { text += "  t\(index): {shell: sleep 0.1}\n" }
        let (result, events, _) = try await run(text, ["-j", "1"])
        #expect(result.status == 0)
        #expect(events.peakExecuting() == 1)
        #expect(events.named("workflow.started").first?["concurrency"] as? Int == 1)
    }

    @Test func higherPriorityStartsFirstThenFileOrder() async throws {
        let (result, events, _) = try await run(
            """
            version: 1
            concurrency: 1
            tasks:
              a: {priority: low, shell: "true"}
              b: {shell: "true"}
              c: {priority: very-high, shell: "true"}
              d: {priority: high, shell: "true"}
              e: {priority: high, shell: "true"}
              f: {priority: very-low, shell: "true"}
            """)
        #expect(result.status == 0)
        #expect(events.startOrder == ["c", "d", "e", "b", "a", "f"])
    }

    @Test func aDependentNeverStartsBeforeItsNeedsFinishEvenAcrossQueues() async throws {
        let (result, events, _) = try await run(
            """
            version: 1
            queues: {net: {concurrency: 2}, cpu: {concurrency: 1}}
            tasks:
              fetch: {queue: net, shell: sleep 0.2}
              other: {queue: net, shell: sleep 0.05}
              build: {queue: cpu, needs: [fetch, other], shell: "true"}
              test: {needs: build, shell: "true"}
            """)
        #expect(result.status == 0)
        let buildStart = try #require(events.index(of: "task.started", task: "build"))
        #expect(try #require(events.index(of: "task.succeeded", task: "fetch")) < buildStart)
        #expect(try #require(events.index(of: "task.succeeded", task: "other")) < buildStart)
        #expect(try #require(events.index(of: "task.succeeded", task: "build")) < (events.index(of: "task.started", task: "test") ?? -1))
    }

    @Test func failFastSkipsWhatIsLeftButRunsFailureAndAlwaysTasks() async throws {
        let (result, events, _) = try await run(
            """
            version: 1
            concurrency: 1
            tasks:
              broken: {shell: "echo about to fail; exit 3"}
              later: {shell: "true"}
              dependent: {needs: broken, shell: "true"}
              on-failure: {needs: broken, when: failure, shell: echo cleaning}
              report: {needs: [dependent], when: always, shell: echo report}
            """)
        #expect(result.status == 1)
        #expect(
            events.finals == [
                "broken": "task.failed", "later": "task.skipped", "dependent": "task.skipped",
                "on-failure": "task.succeeded", "report": "task.succeeded",
            ])
        let failed = try #require(events.named("task.failed").first)
        #expect(failed["exit_code"] as? Int == 3)
        #expect(failed["reason"] as? String == "exited with status 3")
        #expect(events.lines(of: "broken") == ["about to fail"])
        #expect(events.named("workflow.finished").first?["status"] as? String == "failed")
    }

    @Test(arguments: [["--keep-going"], []])
    func keepGoingStartsIndependentTasks(_ arguments: [String]) async throws {
        let failFast = arguments.isEmpty ? "false" : "true"
        let (result, events, _) = try await run(
            """
            version: 1
            concurrency: 1
            fail_fast: \(failFast)
            tasks:
              broken: {shell: exit 1}
              independent: {shell: "true"}
              dependent: {needs: broken, shell: "true"}
            """, arguments)
        #expect(result.status == 1)
        #expect(events.finals == ["broken": "task.failed", "independent": "task.succeeded", "dependent": "task.skipped"])
    }

    @Test func continueOnErrorCountsAsSuccess() async throws {
        let (result, events, _) = try await run(
            """
            version: 1
            tasks:
              lint: {continue_on_error: true, shell: exit 1}
              build: {needs: lint, shell: "true"}
            """)
        #expect(result.status == 0)
        #expect(events.finals == ["lint": "task.failed", "build": "task.succeeded"])
        #expect(events.named("workflow.finished").first?["status"] as? String == "succeeded")
    }

    @Test func retriesBackOffAndReportTheDelay() async throws {
        let (result, events, _) = try await run(
            """
            version: 1
            tasks:
              flaky:
                retries: 3
                retry_delay: 100ms
                shell: |
                  n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count
                  echo "attempt $n"
                  [ $n -ge 3 ]
            """)
        #expect(result.status == 0)
        let retrying = events.named("task.retrying")
        #expect(retrying.map { $0["attempt"] as? Int } == [1, 2])
        let delays = retrying.compactMap { $0["delay_ms"] as? Int }
        #expect(delays.count == 2 && (75...125).contains(delays[0]) && (150...250).contains(delays[1]))
        #expect(events.named("task.succeeded").first?["attempts"] as? Int == 3)
        #expect(events.lines(of: "flaky") == ["attempt 1", "attempt 2", "attempt 3"])
    }

    @Test func aTimeoutFailsTheAttemptAndLeavesNoProcessBehind() async throws {
        let marker = UniqueSleep.seconds()
        let (result, events, _) = try await run(
            """
            version: 1
            tasks:
              slow: {timeout: 300ms, shell: "sleep \(marker) & sleep \(marker)"}
            """)
        #expect(result.status == 1)
        let failed = try #require(events.named("task.failed").first)
        #expect(failed["reason"] as? String == "timed out after 300ms")
        #expect((failed["duration_ms"] as? Int ?? 0) < 600_000)  // not the sleep's 10^6 s
        #expect(try processesMatching("sleep \(marker)").isEmpty)
    }

    @Test func processesThatLeftTheTaskGroupAreKilledWhenTheRunEnds() async throws {
        // Two sessions of their own, out of the task's group, one with a child; the task waits
        // until they are set up (they write their pids from inside them).
        let marker = UniqueSleep.seconds()
        let (result, events, folder) = try await run(
            """
            version: 1
            tasks:
              daemons:
                shell: |
                  setsid sh -c 'echo $$ > one; exec sleep \(marker)' >/dev/null 2>&1 &
                  setsid sh -c 'sleep \(marker) & echo $! > two; echo $$ >> two; wait' >/dev/null 2>&1 &
                  while [ ! -s one ] || [ "$(wc -l < two 2>/dev/null)" != 2 ]; do sleep 0.01; done
              after: {needs: daemons, shell: "true"}
            """)
        #expect(result.status == 0)
        #expect(events.finals == ["daemons": "task.succeeded", "after": "task.succeeded"])
        let pids = try ["one", "two"].flatMap { file in
            try String(contentsOf: folder.url.appendingPathComponent(file), encoding: .utf8).split(separator: "\n").compactMap { pid_t($0) }
        }
        #expect(pids.count == 3)
        #expect(pids.allSatisfy(SignalTests.isGone))
        #expect(try processesMatching("sleep \(marker)").isEmpty)
    }

    @Test func aLeftoverKilledWithItsTaskIsReapedBeforeItsDependentsStart() async throws {
        // `leave`'s sleep outlives its shell, so it becomes flowrun's (the subreaper's) child,
        // and dies with the task's group. When `check` starts, it must be neither alive nor a
        // zombie of flowrun: held to the run's end, a run of thousands of such tasks would hold
        // thousands of zombies, and their pids.
        let marker = UniqueSleep.seconds()
        let (result, events, _) = try await run(
            """
            version: 1
            tasks:
              leave: {shell: "sleep \(marker) & echo $! > pid"}
              check:
                needs: leave
                shell: |
                  state=$(cut -d' ' -f3,4 /proc/$(cat pid)/stat 2>/dev/null) || exit 0
                  echo "sleep $(cat pid): $state (flowrun is $PPID)"
                  [ "${state#* }" != "$PPID" ]
            """)
        #expect(result.status == 0, "\(events.lines(of: "check"))")
        #expect(events.finals == ["leave": "task.succeeded", "check": "task.succeeded"])
        #expect(try processesMatching("sleep \(marker)").isEmpty)
    }

    @Test func aTaskThatMovedToAnotherProcessGroupStillEndsWithItsExitStatus() async throws {
        // Its leader is reaped through its group with what it left there; one that moved into
        // flowrun's own group (the same session, so allowed) is in none of its own, and is
        // reaped by its pid: its status is kept, its dependent runs.
        let (result, events, _) = try await run(
            """
            version: 1
            tasks:
              moves: {shell: "exec python3 -c 'import os, sys; os.setpgid(0, os.getpgid(os.getppid())); sys.exit(3)'"}
              after: {needs: moves, when: always, shell: "true"}
            """)
        #expect(result.status == 1)
        #expect(events.finals == ["moves": "task.failed", "after": "task.succeeded"])
        let failed = try #require(events.named("task.failed").first)
        #expect(failed["reason"] as? String == "exited with status 3")
        #expect(failed["exit_code"] as? Int == 3)
    }

    @Test func outputStreamsLineByLineWithoutLosingTheLastLineOrBreakingOnBinary() async throws {
        let (result, events, _) = try await run(
            #"""
            version: 1
            tasks:
              talk:
                shell: |
                  echo one; echo two >&2
                  head -c 200000 /dev/zero | tr '\0' x; echo
                  printf '\377\376 binary\n'
                  printf 'no newline at the end'
            """#)
        #expect(result.status == 0)
        let stdout = events.lines(of: "talk")
        #expect(stdout.first == "one")
        #expect(stdout.last == "no newline at the end")
        #expect(events.lines(of: "talk", "stderr") == ["two"])
        #expect(stdout.dropFirst().dropLast(2).joined().count == 200_000)
        #expect(stdout[stdout.count - 2].hasSuffix(" binary"))
        let started = try #require(events.index(of: "task.started", task: "talk"))
        #expect(events.events.indices.filter { events.events[$0].name == "task.output" }.allSatisfy { $0 > started })
    }

    @Test func environmentLayersAndArgvFormNeedsNoShell() async throws {
        let (result, events, folder) = try await run(
            """
            version: 1
            env: {A: workflow, B: workflow, C: workflow}
            tasks:
              show:
                env: {B: task}
                shell: 'echo "$A $B $C $FROM_PROCESS"'
              argv: {shell: [printf, "%s|", "$A", "two words"]}
              where: {workdir: /tmp, shell: 'echo "$FLOWRUN_TASK $(basename "$PWD") $(basename "$FLOWRUN_WORKFLOW_DIR")"'}
            """, ["--env", "C=command-line"], environment: ["FROM_PROCESS": "process"])
        #expect(result.status == 0)
        #expect(events.lines(of: "show") == ["workflow task command-line process"])
        #expect(events.lines(of: "argv") == ["$A|two words|"])
        #expect(events.lines(of: "where") == ["where tmp \(folder.url.lastPathComponent)"])
    }

    @Test func aSignalledTaskReportsTheSignal() async throws {
        let (result, events, _) = try await run("version: 1\ntasks:\n  die: {shell: 'kill -SEGV $$'}\n")
        #expect(result.status == 1)
        let failed = try #require(events.named("task.failed").first)
        #expect(failed["reason"] as? String == "killed by signal SIGSEGV (11)")
        #expect(failed["exit_code"] is NSNull)
    }

    @Test func aMissingProgramFailsTheTaskWithAClearReason() async throws {
        let (result, events, _) = try await run("version: 1\ntasks:\n  x: {shell: [no-such-program-flowrun]}\n")
        #expect(result.status == 1)
        #expect(events.named("task.failed").first?["reason"] as? String == "cannot run 'no-such-program-flowrun': No such file or directory")
    }

    @Test func selectedTasksRunWithWhatTheyNeedOnly() async throws {
        let (result, events, _) = try await run(
            """
            version: 1
            tasks:
              a: {shell: "true"}
              b: {needs: a, shell: "true"}
              c: {shell: "true"}
            """, ["b"])
        #expect(result.status == 0)
        #expect(Set(events.finals.keys) == ["a", "b"])
    }

    /// Both streams, stdout and `--events-file`, pass the published schema and the stream's
    /// rules (seq without gaps, one final event per task, output inside a task's life).
    @Test func theEventStreamMatchesSchemasEventsSchemaJSON() async throws {
        let (result, _, folder) = try await run(
            """
            version: 1
            concurrency: 2
            tasks:
              flaky: {retries: 1, retry_delay: 10ms, shell: "echo try; [ -e seen ] || { touch seen; exit 1; }"}
              broken: {needs: flaky, shell: "echo out; echo err >&2; exit 2"}
              skipped: {needs: broken, shell: "true"}
              always: {needs: broken, when: always, shell: "true"}
            """, ["--events-file", "events.jsonl"])
        #expect(result.status == 1)
        let stdoutFile = folder.url.appendingPathComponent("stdout.jsonl")
        try Data(result.stdout.utf8).write(to: stdoutFile)
        for file in [stdoutFile.path, folder.url.appendingPathComponent("events.jsonl").path] {
            let check = try await Self.python(["Tests/FlowConsoleTests/validate_events.py", "schemas/events.schema.json", file, "--tasks", "4"])
            #expect(check.status == 0, "\(check.output)")
            #expect(check.output.hasPrefix("ok: "))
        }
        #expect(try String(contentsOf: folder.url.appendingPathComponent("events.jsonl"), encoding: .utf8) == result.stdout)
    }

    /// Runs `python3 arguments...` in the repository's root.
    static func python(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.currentDirectoryURL = FlowrunBinary.repositoryRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        return try await offThePool {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    /// Command lines of live processes that contain `text` (from /proc, as `pgrep -f` reads it).
    func processesMatching(_ text: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap { entry in
            guard Int(entry) != nil, let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let line = String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
            return line.contains(text) ? line : nil
        }
    }
}
