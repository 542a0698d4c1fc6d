import FlowActions
import FlowEngine
import FlowModel
import FlowPlanning
import FlowTestSupport
import Foundation
import Testing

/// The engine's loop belongs to the run (`ActionRunner`), not to the process: two runs in one
/// process each get their own, and each is ended after its run.
@Suite struct RunLoopTests {
    /// Runs `plan` on `runner`'s loop, on a thread of its own (`Engine.run` waits), and returns
    /// its status and events.
    static func run(_ plan: Plan, with runner: ActionRunner) async -> (RunStatus, [RunEvent.Kind]) {
        await withCheckedContinuation { done in
            Thread {
                let sink = InMemoryEventSink()
                let engine = Engine(
                    plan: plan, runner: runner, loop: runner.loop, bus: EventBus(sinks: [sink]),
                    options: Engine.Options(concurrency: 2, failFast: true))
                let status = engine.run()
                done.resume(returning: (status, sink.kinds))
            }.start()
        }
    }

    static func output(_ kinds: [RunEvent.Kind]) -> [String] {
        kinds.compactMap { if case .taskOutput(let task, _, let line) = $0 { "\(task): \(line)" } else { nil } }
    }

    @Test func twoRunsInOneProcessEachGetAndEndTheirOwnLoop() async throws {
        let folder = try ActionAttemptHarness.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // `later`'s timeout arms a timer on the loop (which must not outlive the run); long, so
        // that it never fires, however long a loaded machine takes to run `echo`.
        let plan = try PlannedTasks.plan(
            """
            version: 1
            tasks:
              hello: {shell: "echo hello"}
              later: {needs: [hello], timeout: 600s, shell: "echo later"}
            """, directory: folder)
        weak var firstLoop: OutputLoop?
        weak var secondLoop: OutputLoop?
        do {
            let first = ActionRunner()
            let second = ActionRunner()
            firstLoop = first.loop as? OutputLoop
            secondLoop = second.loop as? OutputLoop
            #expect(firstLoop != nil && secondLoop != nil)
            #expect(first.loop !== second.loop)

            async let one = Self.run(plan, with: first)
            async let two = Self.run(plan, with: second)
            let (firstRun, secondRun) = await (one, two)
            for (status, kinds) in [firstRun, secondRun] {
                #expect(status == .succeeded)
                #expect(Self.output(kinds) == ["hello: hello", "later: later"])
            }

            #expect(firstLoop?.hasEnded == false)
            first.finishRun()
            #expect(firstLoop?.hasEnded == true)
            #expect(secondLoop?.hasEnded == false, "ending one run's loop leaves the other's")
            second.finishRun()
            #expect(secondLoop?.hasEnded == true)

            // A third run after both ended gets a loop of its own, which works.
            let third = ActionRunner()
            #expect(third.loop !== first.loop && third.loop !== second.loop)
            let (status, kinds) = await Self.run(plan, with: third)
            third.finishRun()
            #expect(status == .succeeded)
            #expect(Self.output(kinds) == ["hello: hello", "later: later"])
        }
        // Once the runs are over, nothing holds an ended loop (no turn queued, no timer, no
        // child): it is freed, and its descriptors are closed.
        #expect(firstLoop == nil)
        #expect(secondLoop == nil)
    }
}
