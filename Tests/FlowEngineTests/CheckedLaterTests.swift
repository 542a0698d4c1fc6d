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

    /// The set-up of every test: the workflow's tasks with the task at `held` checked later
    /// (`LaterGate`), the run started.
    struct HeldRun {
        let gate: LaterGate
        let h: EngineHarness

        init(holding held: Int = 0, _ yaml: String = CheckedLaterTests.yaml, failFast: Bool? = nil) throws {
            gate = LaterGate(holding: held)
            h = try EngineHarness(yaml, failFast: failFast, gate: gate)
            h.start()
        }

        /// Decides the held task (nil: it starts; a reason: it is skipped) and runs what that posts.
        func decide(_ reason: String? = nil) throws {
            try gate.decide(reason)
            h.loop.runPosted()
        }

        /// Suspends the run, then decides the held task to start.
        func decideWhileSuspended() throws {
            h.engine.suspend()
            try decide()
        }

        /// Every one of the run's `tasks` ended once: the final counts add up to them.
        @discardableResult
        func expectEveryTaskCounted(_ tasks: Int) throws -> FinalCounts {
            let counts = try #require(h.workflowFinished?.counts)
            #expect(counts.succeeded + counts.failed + counts.cancelled + counts.skipped == tasks)
            return counts
        }
    }

    /// A cleanup task checked later beside one other task.
    static let cleanupYAML = """
        version: 1
        concurrency: 2
        tasks:
          work: {shell: x}
          tidy: {shell: x, when: always, inputs: [big.in]}
        """

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
        let run = try HeldRun()
        let h = run.h
        #expect(h.started == ["small1"], "big holds one of the two slots")
        #expect(h.finalEvent(of: "big") == nil)
        try h.end("small1")
        #expect(h.started == ["small1", "small2"])
        try run.decide()
        #expect(h.started == ["small1", "small2", "big"])
        try h.end("big")
        #expect(h.started.last == "after", "its dependents waited for it")
        for task: TaskID in ["small2", "after", "tidy"] { try h.end(task) }
        #expect(h.finished == [.succeeded])
    }

    @Test func aHeldTaskDecidedUpToDateIsSkippedAndItsDependentsStart() throws {
        let run = try HeldRun()
        let h = run.h
        try run.decide(SkipReason.upToDate)
        #expect(h.finalEvent(of: "big") == .taskSkipped(task: "big", reason: SkipReason.upToDate))
        #expect(h.started == ["small1", "small2"], "small2 took big's slot")
        try h.end("small1")
        #expect(h.started == ["small1", "small2", "after"], "its dependents start once it is decided")
    }

    @Test func aFailureUnderFailFastSkipsTheHeldTask() throws {
        let run = try HeldRun(failFast: true)
        let h = run.h
        try h.end("small1", .failed(reason: "exited with status 1", exitCode: 1))
        #expect(h.finalEvent(of: "big") == .taskSkipped(task: "big", reason: Engine.failFastReason))
        #expect(h.finalEvent(of: "after") == .taskSkipped(task: "after", reason: "needs 'big', which did not succeed"))
        try run.decide()
        #expect(!h.started.contains("big"), "decided after fail-fast stopped the run: not started")
        try h.end("tidy")
        #expect(h.finished == [.failed])
    }

    @Test func aCancelEndsTheHeldTaskUnstartedAndAHeldCleanupStarts() throws {
        let run = try HeldRun()
        let h = run.h
        h.engine.cancel(reason: "interrupted")
        h.loop.runPosted()
        #expect(h.finalEvent(of: "big") == .taskCancelled(task: "big", reason: "interrupted"))
        try run.decide()
        #expect(!h.started.contains("big"), "its late decision starts nothing")
        try h.end("small1", .failed(reason: "terminated", exitCode: nil))
        try h.end("tidy")
        #expect(h.finished == [.cancelled])
    }

    @Test func aCleanupTaskHeldAtACancelStartsOnceDecided() throws {
        let run = try HeldRun(holding: 1, Self.cleanupYAML)
        let h = run.h
        h.engine.cancel(reason: "interrupted")
        h.loop.runPosted()
        #expect(h.finalEvent(of: "tidy") == nil, "cleanup being checked goes on")
        try run.decide()
        #expect(h.started == ["work", "tidy"])
        try h.end("work", .failed(reason: "terminated", exitCode: nil))
        try h.end("tidy")
        #expect(h.finished == [.cancelled])
    }

    @Test func aTaskDecidedWhileTheRunIsSuspendedStartsOnResume() throws {
        let run = try HeldRun()
        let h = run.h
        try run.decideWhileSuspended()
        #expect(!h.started.contains("big"), "its queue is held")
        h.engine.resume()
        h.loop.runPosted()
        #expect(h.started.contains("big"))
    }

    /// A pause means none starts (README: `kill -USR1`): a task decided meanwhile posts no
    /// task.started until the resume, as a task the scheduler would start then.
    @Test func aTaskDecidedWhileTheRunIsSuspendedPostsNoStartUntilResume() throws {
        let run = try HeldRun()
        let h = run.h
        try run.decideWhileSuspended()
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
        let run = try HeldRun()
        let h = run.h
        try run.decideWhileSuspended()
        h.engine.cancel(reason: "interrupted")
        h.loop.runPosted()
        #expect(h.finalEvent(of: "big") == .taskCancelled(task: "big", reason: "interrupted"))
        #expect(!h.events.contains(.taskStarted(task: "big", attempt: 1, kind: "shell")))
        #expect(!h.started.contains("big"))
        try h.end("small1", .failed(reason: "terminated", exitCode: nil))
        try h.end("tidy")
        #expect(h.finished == [.cancelled])
        let counts = try run.expectEveryTaskCounted(5)
        #expect(counts.cancelled == 2, "big, never started, and small1")
    }

    /// Fail-fast while paused skips a task decided meanwhile, as one still waiting; cleanup
    /// decided meanwhile starts at the resume.
    @Test func failFastWhileSuspendedSkipsATaskDecidedMeanwhile() throws {
        let run = try HeldRun(failFast: true)
        let h = run.h
        try run.decideWhileSuspended()
        try h.end("small1", .failed(reason: "exited with status 1", exitCode: 1))
        #expect(h.finalEvent(of: "big") == .taskSkipped(task: "big", reason: Engine.failFastReason))
        h.engine.resume()
        h.loop.runPosted()
        #expect(!h.started.contains("big"))
        try h.end("tidy")
        #expect(h.finished == [.failed])
        try run.expectEveryTaskCounted(5)
    }

    @Test func aCleanupTaskDecidedWhileSuspendedStartsAtTheCancel() throws {
        let run = try HeldRun(holding: 1, Self.cleanupYAML)
        let h = run.h
        try run.decideWhileSuspended()
        #expect(!h.started.contains("tidy"))
        h.engine.cancel(reason: "interrupted")
        h.loop.runPosted()
        #expect(h.started == ["work", "tidy"], "the cancel lifts the pause for cleanup")
        try h.end("work", .failed(reason: "terminated", exitCode: nil))
        try h.end("tidy")
        #expect(h.finished == [.cancelled])
    }
}
