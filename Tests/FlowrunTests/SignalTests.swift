import Foundation
import Testing

import Glibc

/// Ctrl-C, SIGTERM, pause and resume against a real run.
@Suite(.serialized) struct SignalTests {
    func start(_ text: String, _ arguments: [String] = []) throws -> (LiveRun, TemporaryFolder) {
        let folder = try TemporaryFolder()
        try Data(text.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return (try LiveRun(["run", "--events", "jsonl", "flow.yaml"] + arguments, in: folder.url), folder)
    }

    func uniqueSleep() -> String { "10\(Int.random(in: 10_000...99_999))" }

    @Test(arguments: [(SIGINT, Int32(130), "interrupted (SIGINT)"), (SIGTERM, Int32(143), "terminated (SIGTERM)")])
    func aSignalCancelsTheRunAndEveryTaskGetsOneFinalEvent(signal: Int32, status: Int32, reason: String) throws {
        let seconds = uniqueSleep()
        let (run, folder) = try start("""
            version: 1
            concurrency: 2
            tasks:
              long: {shell: "sleep \(seconds) & sleep \(seconds)"}
              stubborn: {shell: "trap 'echo got TERM' TERM; sleep \(seconds) & wait; sleep 0.2"}
              later: {needs: long, shell: "true"}
            """, ["--grace", "5"])
        #expect(run.waitFor("\"task\":\"stubborn\",\"attempt\":1"))
        usleep(200_000)  // let the shells set their traps
        run.send(signal)
        #expect(run.wait() == status)
        #expect(run.stderr == "")
        let events = try EventStream(run.stdout)
        #expect(events.finals == ["long": "task.cancelled", "stubborn": "task.cancelled", "later": "task.skipped"])
        #expect(events.named("task.cancelled").allSatisfy { $0["reason"] as? String == reason })
        #expect(events.lines(of: "stubborn") == ["got TERM"])
        #expect(events.named("workflow.finished").first?["status"] as? String == "cancelled")
        #expect(try RunTests().processesMatching("sleep \(seconds)").isEmpty)
        withExtendedLifetime(folder) {}
    }

    @Test func aSecondInterruptKillsAtOnce() throws {
        let seconds = uniqueSleep()
        let (run, folder) = try start("""
            version: 1
            tasks:
              deaf: {shell: "trap '' TERM; sleep \(seconds)"}
            """, ["--grace", "60"])
        #expect(run.waitFor("\"task.started\""))
        usleep(200_000)
        run.send(SIGINT)
        usleep(300_000)
        run.send(SIGINT)
        #expect(run.wait(seconds: 10) == 130)
        #expect(try EventStream(run.stdout).finals == ["deaf": "task.cancelled"])
        #expect(try RunTests().processesMatching("sleep \(seconds)").isEmpty)
        withExtendedLifetime(folder) {}
    }

    @Test func pauseHoldsNewTasksAndResumeStartsThem() throws {
        let (run, folder) = try start("""
            version: 1
            concurrency: 1
            tasks:
              first: {shell: "while [ ! -e go ]; do sleep 0.05; done"}
              second: {shell: "true"}
            """)
        #expect(run.waitFor("\"task\":\"first\",\"attempt\":1"))
        run.send(SIGUSR1)
        #expect(run.waitFor("queue.suspended"))
        FileManager.default.createFile(atPath: folder.url.appendingPathComponent("go").path, contents: nil)
        #expect(run.waitFor("\"task.succeeded\",\"task\":\"first\""))
        usleep(300_000)
        #expect(!run.stdout.contains("\"task\":\"second\",\"attempt\""))
        run.send(SIGUSR2)
        #expect(run.wait() == 0)
        let events = try EventStream(run.stdout)
        let resumed = try #require(events.events.firstIndex { $0.name == "queue.resumed" })
        #expect(try #require(events.index(of: "task.started", task: "second")) > resumed)
    }
}
