import Foundation
import Glibc
import Testing

/// Cleanup on cancel, as a GitHub Actions user knows it: a cancelled workflow still runs its
/// `if: always()` steps. In flowrun those are `when: always` tasks, run against a real run.
@Suite(.serialized) struct CleanupTests {
    func start(_ text: String, _ arguments: [String]) throws -> (LiveRun, TemporaryFolder) {
        let folder = try TemporaryFolder()
        try Data(text.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return (try LiveRun(["run", "flow.yaml"] + arguments, in: folder.url), folder)
    }

    func uniqueSleep() -> String { UniqueSleep.seconds() }

    /// `test` runs until cancelled; `teardown` must run whatever happens to it.
    func workflow(sleeping seconds: String, teardown: String = "echo tearing down") -> String {
        """
        version: 1
        tasks:
          test: {shell: "echo ready; sleep \(seconds)"}
          teardown: {needs: test, when: always, shell: "\(teardown)"}
          report: {needs: test, shell: "echo reporting"}
          notify: {needs: test, when: failure, shell: "echo notifying"}
        """
    }

    @Test(arguments: [
        (SIGINT, Int32(130), "interrupted (SIGINT)"), (SIGTERM, Int32(143), "terminated (SIGTERM)"),
        (SIGHUP, Int32(129), "hung up (SIGHUP)"),
    ])
    func aCancelledRunStillRunsItsAlwaysTasksAndExitsWithTheSignalsStatus(
        signal: Int32, status: Int32, reason: String
    )
        async throws
    {
        let seconds = uniqueSleep()
        let (run, folder) = try start(workflow(sleeping: seconds), ["--events", "jsonl"])
        #expect(await run.waitFor(#""line":"ready""#))
        run.send(signal)
        // The cleanup succeeds, but the run was cancelled: the status is still the signal's.
        #expect(await run.wait() == status)
        let events = try EventStream(run.stdout)
        #expect(events.finals == ["test": "task.cancelled", "teardown": "task.succeeded", "report": "task.skipped", "notify": "task.skipped"])
        #expect(events.lines(of: "teardown") == ["tearing down"])
        #expect(events.named("task.skipped").allSatisfy { $0["reason"] as? String == reason })
        let cleanup = try #require(events.named("workflow.cleanup").first)
        #expect(cleanup["tasks"] as? [String] == ["teardown"])
        #expect(cleanup["reason"] as? String == reason)
        // Said before the cleanup starts.
        #expect(try #require(events.index(of: "task.started", task: "teardown")) > events.events.firstIndex { $0.name == "workflow.cleanup" }!)
        let finished = try #require(events.named("workflow.finished").first)
        #expect(finished["status"] as? String == "cancelled")
        #expect((finished["counts"] as? [String: Any])?["succeeded"] as? Int == 1)
        #expect(try RunTests().processesMatching("sleep \(seconds)").isEmpty)
        // The stream, workflow.cleanup included, passes the published schema and the stream's rules.
        let file = folder.url.appendingPathComponent("stdout.jsonl")
        try Data(run.stdout.utf8).write(to: file)
        let check = try await RunTests.python(["Tests/FlowConsoleTests/validate_events.py", "schemas/events.schema.json", file.path, "--tasks", "4"])
        #expect(check.status == 0, "\(check.output)")
    }

    @Test func theLogSaysCleanupRunsAndShowsItsOutput() async throws {
        let seconds = uniqueSleep()
        let (run, folder) = try start(workflow(sleeping: seconds), ["--events", "plain"])
        #expect(await run.waitFor("[test] | ready"))
        run.send(SIGINT)
        #expect(await run.wait() == 130)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("interrupted (SIGINT): running cleanup tasks (when: always): teardown; Ctrl-C again kills them"))
        #expect(lines.contains("[teardown] | tearing down"))
        #expect(lines.contains { $0.hasPrefix("[teardown] succeeded in ") })
        #expect(lines.contains("[report] skipped: interrupted (SIGINT)"))
        // The run's record shows it again, the cleanup line included, without a complaint.
        let logs = try await FlowrunBinary.run(["logs"], in: folder.url)
        #expect(logs.status == 0)
        #expect(logs.stderr == "")
        #expect(logs.stdout == run.stdout)
        withExtendedLifetime(folder) {}
    }

    @Test func aSecondInterruptKillsTheCleanupToo() async throws {
        let seconds = uniqueSleep()
        // The cleanup would outlive a grace of 600 s: only the second Ctrl-C ends it in time.
        let (run, folder) = try start(
            """
            version: 1
            tasks:
              test: {shell: "echo ready; sleep \(seconds)"}
              teardown: {needs: test, when: always, shell: "trap '' TERM; echo cleaning; sleep \(seconds)"}
              after: {needs: teardown, when: always, shell: "echo too late"}
            """, ["--events", "jsonl", "--grace", "600"])
        #expect(await run.waitFor(#""line":"ready""#))
        run.send(SIGINT)
        #expect(await run.waitFor(#""line":"cleaning""#))
        run.send(SIGINT)
        #expect(await run.wait(seconds: 120) == 130)
        let events = try EventStream(run.stdout)
        #expect(events.finals == ["test": "task.cancelled", "teardown": "task.cancelled", "after": "task.skipped"])
        #expect(events.lines(of: "after").isEmpty)
        #expect(await SignalTests.noneLeft(matching: "sleep \(seconds)"))
        withExtendedLifetime(folder) {}
    }

    @Test func cleanupStillRunningWhenTheGracePeriodEndsIsStopped() async throws {
        let seconds = uniqueSleep()
        // `watch` (when: always) was running at the Ctrl-C: it goes on as cleanup, without
        // SIGTERM, until the grace period of 1 s is over; then it gets one.
        let (run, folder) = try start(
            """
            version: 1
            tasks:
              test: {shell: "echo ready; sleep \(seconds)"}
              watch: {when: always, shell: "trap 'echo got TERM; exit 1' TERM; echo watching; sleep \(seconds) & wait"}
            """, ["--events", "jsonl", "--grace", "1"])
        #expect(await run.waitFor(#""line":"ready""#))
        #expect(await run.waitFor(#""line":"watching""#))  // printed once the trap is set
        run.send(SIGINT)
        #expect(await run.wait() == 130)
        let events = try EventStream(run.stdout)
        #expect(events.finals == ["test": "task.cancelled", "watch": "task.cancelled"])
        #expect(events.named("workflow.cleanup").first?["tasks"] as? [String] == ["watch"])
        let watch = events.named("task.cancelled").first { $0.task == "watch" }
        #expect(watch?["reason"] as? String == "cleanup still running when the grace period (1s) ended")
        #expect(events.lines(of: "watch") == ["watching", "got TERM"])
        // The SIGTERM came at the end of the grace period, after `test` had ended.
        #expect(try #require(events.index(of: "task.cancelled", task: "watch")) > events.index(of: "task.cancelled", task: "test")!)
        #expect(await SignalTests.noneLeft(matching: "sleep \(seconds)"))
        withExtendedLifetime(folder) {}
    }
}
