import FlowModel
import Foundation
import Testing

@testable import FlowEngine

/// A task whose gate check is finished off the loop (`TaskGate.check(_:decided:)` answers
/// `.later`: a changed input is being hashed) holds its slot with no event until the gate
/// decides; what happens to the run meanwhile (a failure, a cancel, a suspension) applies to it
/// as to a task not yet started.
@Suite struct CheckedLaterTests {
    /// Decides the task at `held` later, when the test calls `decide`; every other task runs.
    final class LaterGate: TaskGate, @unchecked Sendable {
        let held: Int
        private let lock = NSLock()
        private var decided: (@Sendable (String?) -> Void)?

        init(holding held: Int) { self.held = held }

        func skipReason(for task: Int) -> String? { nil }

        func check(_ task: Int, decided: @escaping @Sendable (String?) -> Void) -> CheckAnswer {
            guard task == held else { return .now(nil) }
            lock.withLock { self.decided = decided }
            return .later
        }

        func decide(_ reason: String?) throws {
            let decided = lock.withLock { self.decided }
            try #require(decided != nil, "the held task was never checked")
            decided?(reason)
        }

        func taskSucceeded(_ task: Int) {}
    }

    static let yaml = """
        version: 1
        concurrency: 2
        tasks:
          big: {shell: x, inputs: [big.in]}
          small1: {shell: x}
          small2: {shell: x}
          after: {shell: x, needs: [big]}
          tidy: {shell: x, needs: [big], when: always}
        """

    @Test func theHeldTaskKeepsItsSlotAndStartsOnceDecided() throws {
        let gate = LaterGate(holding: 0)
        let h = try EngineHarness(Self.yaml, gate: gate)
        h.start()
        #expect(h.started == ["small1"], "big holds one of the two slots")
        #expect(h.finalEvent(of: "big") == nil)
        try h.end("small1")
        #expect(h.started == ["small1", "small2"])
        try gate.decide(nil)
        h.loop.runPosted()
        #expect(h.started == ["small1", "small2", "big"])
        try h.end("big")
        #expect(h.started.last == "after", "its dependents waited for it")
        for task: TaskID in ["small2", "after", "tidy"] { try h.end(task) }
        #expect(h.finished == [.succeeded])
    }

    @Test func aHeldTaskDecidedUpToDateIsSkippedAndItsDependentsStart() throws {
        let gate = LaterGate(holding: 0)
        let h = try EngineHarness(Self.yaml, gate: gate)
        h.start()
        try gate.decide(SkipReason.upToDate)
        h.loop.runPosted()
        #expect(h.finalEvent(of: "big") == .taskSkipped(task: "big", reason: SkipReason.upToDate))
        #expect(h.started == ["small1", "small2"], "small2 took big's slot")
        try h.end("small1")
        #expect(h.started == ["small1", "small2", "after"], "its dependents start once it is decided")
    }

    @Test func aFailureUnderFailFastSkipsTheHeldTask() throws {
        let gate = LaterGate(holding: 0)
        let h = try EngineHarness(Self.yaml, failFast: true, gate: gate)
        h.start()
        try h.end("small1", .failed(reason: "exited with status 1", exitCode: 1))
        #expect(h.finalEvent(of: "big") == .taskSkipped(task: "big", reason: Engine.failFastReason))
        #expect(h.finalEvent(of: "after") == .taskSkipped(task: "after", reason: "needs 'big', which did not succeed"))
        try gate.decide(nil)
        h.loop.runPosted()
        #expect(!h.started.contains("big"), "decided after fail-fast stopped the run: not started")
        try h.end("tidy")
        #expect(h.finished == [.failed])
    }

    @Test func aCancelEndsTheHeldTaskUnstartedAndAHeldCleanupStarts() throws {
        let gate = LaterGate(holding: 0)
        let h = try EngineHarness(Self.yaml, gate: gate)
        h.start()
        h.engine.cancel(reason: "interrupted")
        h.loop.runPosted()
        #expect(h.finalEvent(of: "big") == .taskCancelled(task: "big", reason: "interrupted"))
        try gate.decide(nil)
        h.loop.runPosted()
        #expect(!h.started.contains("big"), "its late decision starts nothing")
        try h.end("small1", .failed(reason: "terminated", exitCode: nil))
        try h.end("tidy")
        #expect(h.finished == [.cancelled])
    }

    @Test func aCleanupTaskHeldAtACancelStartsOnceDecided() throws {
        let gate = LaterGate(holding: 1)
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 2
            tasks:
              work: {shell: x}
              tidy: {shell: x, when: always, inputs: [big.in]}
            """, gate: gate)
        h.start()
        h.engine.cancel(reason: "interrupted")
        h.loop.runPosted()
        #expect(h.finalEvent(of: "tidy") == nil, "cleanup being checked goes on")
        try gate.decide(nil)
        h.loop.runPosted()
        #expect(h.started == ["work", "tidy"])
        try h.end("work", .failed(reason: "terminated", exitCode: nil))
        try h.end("tidy")
        #expect(h.finished == [.cancelled])
    }

    @Test func aTaskDecidedWhileTheRunIsSuspendedStartsOnResume() throws {
        let gate = LaterGate(holding: 0)
        let h = try EngineHarness(Self.yaml, gate: gate)
        h.start()
        h.engine.suspend()
        try gate.decide(nil)
        h.loop.runPosted()
        #expect(!h.started.contains("big"), "its queue is held")
        h.engine.resume()
        h.loop.runPosted()
        #expect(h.started.contains("big"))
    }

    /// A pause means none starts (README: `kill -USR1`): a task decided meanwhile posts no
    /// task.started until the resume, as a task the scheduler would start then.
    @Test func aTaskDecidedWhileTheRunIsSuspendedPostsNoStartUntilResume() throws {
        let gate = LaterGate(holding: 0)
        let h = try EngineHarness(Self.yaml, gate: gate)
        h.start()
        h.engine.suspend()
        try gate.decide(nil)
        h.loop.runPosted()
        #expect(!h.events.contains(.taskStarted(task: "big", attempt: 1, kind: "shell")), "paused: nothing starts")
        #expect(h.events.last == .queueSuspended)
        h.engine.resume()
        h.loop.runPosted()
        #expect(h.events.contains(.taskStarted(task: "big", attempt: 1, kind: "shell")))
        #expect(h.started.contains("big"))
    }

    /// Decided while paused, then cancelled: it ends cancelled, never started, as a task the
    /// cancel finds still being checked; a cleanup task decided so starts as cleanup.
    @Test func aTaskDecidedWhileSuspendedThenCancelledEndsUnstarted() throws {
        let gate = LaterGate(holding: 0)
        let h = try EngineHarness(Self.yaml, gate: gate)
        h.start()
        h.engine.suspend()
        try gate.decide(nil)
        h.loop.runPosted()
        h.engine.cancel(reason: "interrupted")
        h.loop.runPosted()
        #expect(h.finalEvent(of: "big") == .taskCancelled(task: "big", reason: "interrupted"))
        #expect(!h.events.contains(.taskStarted(task: "big", attempt: 1, kind: "shell")))
        #expect(!h.started.contains("big"))
        try h.end("small1", .failed(reason: "terminated", exitCode: nil))
        try h.end("tidy")
        #expect(h.finished == [.cancelled])
        let counts = try #require(h.workflowFinished?.counts)
        #expect(counts.succeeded + counts.failed + counts.cancelled + counts.skipped == 5)
        #expect(counts.cancelled == 2, "big, never started, and small1")
    }

    /// Fail-fast while paused skips a task decided meanwhile, as one still waiting; cleanup
    /// decided meanwhile starts at the resume.
    @Test func failFastWhileSuspendedSkipsATaskDecidedMeanwhile() throws {
        let gate = LaterGate(holding: 0)
        let h = try EngineHarness(Self.yaml, failFast: true, gate: gate)
        h.start()
        h.engine.suspend()
        try gate.decide(nil)
        h.loop.runPosted()
        try h.end("small1", .failed(reason: "exited with status 1", exitCode: 1))
        #expect(h.finalEvent(of: "big") == .taskSkipped(task: "big", reason: Engine.failFastReason))
        h.engine.resume()
        h.loop.runPosted()
        #expect(!h.started.contains("big"))
        try h.end("tidy")
        #expect(h.finished == [.failed])
        let counts = try #require(h.workflowFinished?.counts)
        #expect(counts.succeeded + counts.failed + counts.cancelled + counts.skipped == 5)
    }

    @Test func aCleanupTaskDecidedWhileSuspendedStartsAtTheCancel() throws {
        let gate = LaterGate(holding: 1)
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 2
            tasks:
              work: {shell: x}
              tidy: {shell: x, when: always, inputs: [big.in]}
            """, gate: gate)
        h.start()
        h.engine.suspend()
        try gate.decide(nil)
        h.loop.runPosted()
        #expect(!h.started.contains("tidy"))
        h.engine.cancel(reason: "interrupted")
        h.loop.runPosted()
        #expect(h.started == ["work", "tidy"], "the cancel lifts the pause for cleanup")
        try h.end("work", .failed(reason: "terminated", exitCode: nil))
        try h.end("tidy")
        #expect(h.finished == [.cancelled])
    }
}
