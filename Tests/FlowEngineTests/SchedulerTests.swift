import FlowModel
import Testing

@testable import FlowEngine

// The scheduler driven by hand, one input at a time, asserting the exact actions it returns.
// Task `i` of a test graph has id "t<i>" and, unless told otherwise, file index `i`.

/// One task of a test graph, compactly: `.t(0, 1, when: .always, q: 1, p: .high, coe: true)`.
struct SchedSpec: Sendable {
    var needs: [Int] = []
    var when: When = .success
    var queue = 0
    var priority: Priority = .normal
    var continueOnError = false
    var fileIndex: Int?

    static func t(
        _ needs: Int..., when: When = .success, q: Int = 0, p: Priority = .normal, coe: Bool = false,
        file: Int? = nil
    ) -> Self {
        Self(needs: needs, when: when, queue: q, priority: p, continueOnError: coe, fileIndex: file)
    }
}

extension Scheduler {
    /// `queues` are the limits of queue 0, 1, ...; by default a single queue limited by `global`.
    init(_ specs: [SchedSpec], queues: [Int]? = nil, global: Int, failFast: Bool = true) {
        let tasks = specs.enumerated().map { index, spec in
            TaskInfo(
                needs: spec.needs, when: spec.when, queue: spec.queue, priority: spec.priority,
                fileIndex: spec.fileIndex ?? index, continueOnError: spec.continueOnError, id: "t\(index)")
        }
        self.init(tasks: tasks, queueLimits: queues ?? [global], globalLimit: global, failFast: failFast)
    }
}

/// The skip reasons the scheduler gives.
enum Why {
    static let failFast = "an earlier task failed (fail_fast)"
    static let noFailure = "no need failed (when: failure)"
    static func needs(_ task: Int) -> String { "needs 't\(task)', which did not succeed" }
}

private typealias Action = Scheduler.Action

private func readies(_ tasks: Range<Int>) -> [Action] { tasks.map { .ready($0) } }

@Suite struct SchedulerTests {
    // MARK: Limits

    @Test(arguments: [1, 2, 3, 5, 8])
    func globalLimitCapsWhatRuns(limit: Int) {
        var s = Scheduler(Array(repeating: .t(), count: 5), global: limit)
        let first = min(limit, 5)
        #expect(s.begin() == readies(0..<5) + (0..<first).map { .start($0) })
        // Each finish frees one slot, which the next task in file order takes.
        for task in 0..<5 {
            let next: [Action] = task + first < 5 ? [.start(task + first)] : []
            #expect(s.taskFinished(task, .succeeded) == next + (task == 4 ? [.finish(.succeeded)] : []))
        }
    }

    /// (queue limit, global limit): four tasks in queue 1 start min(both) at once.
    @Test(arguments: [(1, 4), (2, 4), (5, 2), (3, 3), (1, 1)])
    func bothLimitsApply(queueLimit: Int, global: Int) {
        var s = Scheduler(Array(repeating: .t(q: 1), count: 4), queues: [global, queueLimit], global: global)
        let first = min(queueLimit, global)
        #expect(s.begin() == readies(0..<4) + (0..<first).map { .start($0) })
        #expect(s.runningCount == first)
    }

    @Test func serialQueueInsideTheGlobalLimit() {
        // Global 3; t0, t1 in queue 1 of concurrency 1; t2...t5 in the default queue.
        var s = Scheduler([.t(q: 1), .t(q: 1), .t(), .t(), .t(), .t()], queues: [3, 1], global: 3)
        #expect(s.begin() == readies(0..<6) + [.start(0), .start(2), .start(3)])
        #expect(s.taskFinished(2, .succeeded) == [.start(4)])  // t1 waits: queue 1 is full
        #expect(s.taskFinished(0, .succeeded) == [.start(1)])  // t1 before t5: file order
        #expect(s.taskFinished(3, .succeeded) == [.start(5)])
        #expect(s.taskFinished(1, .succeeded) == [])
        #expect(s.taskFinished(4, .succeeded) == [])
        #expect(s.taskFinished(5, .succeeded) == [.finish(.succeeded)])
    }

    // MARK: Priority and order

    /// One slot: tasks start by priority, then file order.
    @Test(arguments: [
        ([Priority.normal, .normal, .normal], [0, 1, 2]),
        ([.low, .normal, .veryHigh, .high, .high], [2, 3, 4, 1, 0]),
        ([.veryLow, .low, .normal, .high, .veryHigh], [4, 3, 2, 1, 0]),
        ([.high, .veryLow, .high, .normal], [0, 2, 3, 1]),
    ])
    func priorityThenFileOrder(priorities: [Priority], order: [Int]) {
        var s = Scheduler(priorities.map { .t(p: $0) }, global: 1)
        #expect(s.begin() == readies(0..<order.count) + [.start(order[0])])
        for (index, task) in order.enumerated() {
            let next: [Action] = index + 1 < order.count ? [.start(order[index + 1])] : [.finish(.succeeded)]
            #expect(s.taskFinished(task, .succeeded) == next)
        }
    }

    @Test func fileOrderNotTaskIndexBreaksTies() {
        var s = Scheduler([.t(file: 2), .t(file: 0), .t(file: 1)], global: 1)
        #expect(s.begin() == readies(0..<3) + [.start(1)])
        #expect(s.taskFinished(1, .succeeded) == [.start(2)])
        #expect(s.taskFinished(2, .succeeded) == [.start(0)])
    }

    @Test func aLaterReadyTaskOfHigherPriorityGoesFirst() {
        var s = Scheduler([.t(), .t(p: .low), .t(0, p: .veryHigh)], global: 1)
        #expect(s.begin() == [.ready(0), .ready(1), .start(0)])
        #expect(s.taskFinished(0, .succeeded) == [.ready(2), .start(2)])
        #expect(s.taskFinished(2, .succeeded) == [.start(1)])
    }

    @Test func aFullQueueDoesNotBlockAnotherQueue() {
        // t0 and t1 in queue 1 (concurrency 1); t2, very low, in the default queue.
        var s = Scheduler([.t(q: 1), .t(q: 1, p: .veryHigh), .t(p: .veryLow)], queues: [3, 1], global: 3)
        #expect(s.begin() == readies(0..<3) + [.start(1), .start(2)])  // t0 waits, t2 does not
        #expect(s.taskFinished(2, .succeeded) == [])
        #expect(s.taskFinished(1, .succeeded) == [.start(0)])
        #expect(s.taskFinished(0, .succeeded) == [.finish(.succeeded)])
    }

    @Test func dependenciesAcrossQueues() {
        // t0 in the network queue (1); t1 (default) and t2 (network) need it; t3 (default) needs both.
        var s = Scheduler([.t(q: 1), .t(0), .t(0, q: 1), .t(1, 2)], queues: [2, 1], global: 2)
        #expect(s.begin() == [.ready(0), .start(0)])
        #expect(s.taskFinished(0, .succeeded) == [.ready(1), .ready(2), .start(1), .start(2)])
        #expect(s.taskFinished(1, .succeeded) == [])  // t3 still needs t2
        #expect(s.taskFinished(2, .succeeded) == [.ready(3), .start(3)])
        #expect(s.taskFinished(3, .succeeded) == [.finish(.succeeded)])
    }

    // MARK: when

    /// t1 needs t0 with the given `when`; what t0's outcome does to t1 (fail_fast off).
    @Test(arguments: [
        (Scheduler.Outcome.succeeded, When.success, true),
        (.succeeded, .failure, false),
        (.succeeded, .always, true),
        (.failed, .success, false),
        (.failed, .failure, true),
        (.failed, .always, true),
    ])
    func whenDecidesOnOneNeed(outcome: Scheduler.Outcome, when: When, runs: Bool) {
        var s = Scheduler([.t(), .t(0, when: when)], global: 1, failFast: false)
        #expect(s.begin() == [.ready(0), .start(0)])
        let status: RunStatus = outcome == .succeeded ? .succeeded : .failed
        let reason = when == .failure ? Why.noFailure : Why.needs(0)
        #expect(s.taskFinished(0, outcome) == (runs ? [.ready(1), .start(1)] : [.skip(1, reason: reason), .finish(status)]))
        if runs { #expect(s.taskFinished(1, .succeeded) == [.finish(status)]) }
    }

    @Test func whenFailureTasksSkipDownAChainOfSuccess() {
        // t1 (when: failure) is skipped because t0 succeeded; so is t2 (when: failure), since
        // t1 was skipped for no failure; t3 (when: success) did not get its need's success.
        var s = Scheduler([.t(), .t(0, when: .failure), .t(1, when: .failure), .t(2)], global: 2)
        #expect(s.begin() == [.ready(0), .start(0)])
        #expect(
            s.taskFinished(0, .succeeded) == [
                .skip(1, reason: Why.noFailure), .skip(2, reason: Why.noFailure), .skip(3, reason: Why.needs(2)),
                .finish(.succeeded),
            ])
    }

    @Test func whenAlwaysRunsAfterAFailedNeed() {
        var s = Scheduler([.t(), .t(0, when: .always), .t(0)], global: 1)
        #expect(s.begin() == [.ready(0), .start(0)])
        #expect(s.taskFinished(0, .failed) == [.ready(1), .skip(2, reason: Why.needs(0)), .start(1)])
        #expect(s.taskFinished(1, .succeeded) == [.finish(.failed)])
    }

    /// A failure is seen through the tasks it caused to be skipped: t3 (when: failure) runs after
    /// t0 failed and t1, t2 were skipped for it. t4 (when: failure) on an unrelated success does not.
    @Test(arguments: [true, false])
    func upstreamFailurePropagatesThroughSkippedTasks(failFast: Bool) {
        var s = Scheduler([.t(), .t(0), .t(1), .t(2, when: .failure), .t(2, when: .always)], global: 1, failFast: failFast)
        #expect(s.begin() == [.ready(0), .start(0)])
        #expect(
            s.taskFinished(0, .failed) == [
                .skip(1, reason: Why.needs(0)), .skip(2, reason: Why.needs(1)), .ready(3), .ready(4), .start(3),
            ])
        #expect(s.taskFinished(3, .succeeded) == [.start(4)])
        #expect(s.taskFinished(4, .succeeded) == [.finish(.failed)])
    }

    // MARK: Failure

    @Test func failFastSkipsWaitingAndLaterSuccessTasksButNotAlwaysOrFailure() {
        // Global 2. t0 fails while t1 runs; t2 (success) and t3 (always) wait for a slot;
        // t4 (success), t5 (always) and t6 (failure) need t1.
        var s = Scheduler(
            [.t(), .t(), .t(), .t(when: .always), .t(1), .t(1, when: .always), .t(1, when: .failure)],
            global: 2)
        #expect(s.begin() == readies(0..<4) + [.start(0), .start(1)])
        #expect(s.taskFinished(0, .failed) == [.skip(2, reason: Why.failFast), .start(3)])
        // t1 was running and finishes normally; of its dependents only t5 runs.
        #expect(
            s.taskFinished(1, .succeeded) == [
                .skip(4, reason: Why.failFast), .ready(5), .skip(6, reason: Why.noFailure), .start(5),
            ])
        #expect(s.taskFinished(3, .succeeded) == [])
        #expect(s.taskFinished(5, .succeeded) == [.finish(.failed)])
    }

    @Test func withoutFailFastIndependentTasksKeepStarting() {
        var s = Scheduler([.t(), .t(), .t(0), .t(1)], global: 1, failFast: false)
        #expect(s.begin() == [.ready(0), .ready(1), .start(0)])
        #expect(s.taskFinished(0, .failed) == [.skip(2, reason: Why.needs(0)), .start(1)])
        #expect(s.taskFinished(1, .succeeded) == [.ready(3), .start(3)])
        #expect(s.taskFinished(3, .succeeded) == [.finish(.failed)])
    }

    @Test(arguments: [true, false])
    func continueOnErrorCountsAsSuccess(failFast: Bool) {
        // t0 fails but tolerates it: t1 runs, t2 (when: failure) is skipped, independent t3 still
        // starts under fail_fast, and the run succeeds.
        var s = Scheduler([.t(coe: true), .t(0), .t(0, when: .failure), .t()], global: 1, failFast: failFast)
        #expect(s.begin() == [.ready(0), .ready(3), .start(0)])
        #expect(s.taskFinished(0, .failed) == [.ready(1), .skip(2, reason: Why.noFailure), .start(1)])
        #expect(s.taskFinished(1, .succeeded) == [.start(3)])
        #expect(s.taskFinished(3, .succeeded) == [.finish(.succeeded)])
    }

    // MARK: Cancel, suspend, resume

    @Test func cancelSkipsWaitingTasksAndFinishesWhenTheRunningOnesReport() {
        var s = Scheduler([.t(), .t(), .t(), .t(0), .t(0, when: .always), .t(0, when: .failure)], global: 2)
        #expect(s.begin() == readies(0..<3) + [.start(0), .start(1)])
        #expect(s.cancel(reason: "interrupted (SIGINT)") == [.skip(2, reason: "interrupted (SIGINT)")])
        #expect(s.cancel(reason: "again") == [])
        #expect(s.resume() == [])
        #expect(s.taskFinished(1, .succeeded) == [])  // a free slot, but nothing starts
        // The `when: always` task runs as cleanup once its need has ended; the others are skipped.
        #expect(
            s.taskFinished(0, .cancelled) == [
                .skip(3, reason: "interrupted (SIGINT)"), .ready(4), .skip(5, reason: "interrupted (SIGINT)"), .start(4),
            ])
        #expect(s.taskFinished(4, .succeeded) == [.finish(.cancelled)])  // cancelled, even if cleanup succeeded
    }

    @Test func cancelWithNothingRunningFinishesAtOnce() {
        var s = Scheduler([.t(), .t(0), .t(p: .high)], global: 1)
        let suspended = s.suspend()
        #expect(suspended)
        #expect(s.begin() == [.ready(0), .ready(2)])
        #expect(
            s.cancel(reason: "stop") == [
                .skip(0, reason: "stop"), .skip(1, reason: "stop"), .skip(2, reason: "stop"), .finish(.cancelled),
            ])
    }

    // MARK: Cleanup on cancel (`when: always`, as GitHub's `always()`)

    @Test func anAlwaysTaskWaitingForASlotStartsAsCleanupWhenTheRunIsCancelled() {
        // t0 runs; t1 (success) and t2 (always) wait for the one slot.
        var s = Scheduler([.t(), .t(), .t(when: .always)], global: 1)
        #expect(s.begin() == readies(0..<3) + [.start(0)])
        #expect(s.cancel(reason: "stop") == [.skip(1, reason: "stop")])
        #expect(s.taskFinished(0, .cancelled) == [.start(2)])
        #expect(s.taskFinished(2, .failed) == [.finish(.cancelled)])
    }

    @Test func cleanupWaitsUntilEveryNeedHasEndedEvenSkippedOnes() {
        // t2 (always) needs t1, which needs t0: t1 is skipped by the cancel, t2 still runs after t0.
        var s = Scheduler([.t(), .t(0), .t(1, when: .always), .t(2), .t(2, when: .failure)], global: 4)
        #expect(s.begin() == [.ready(0), .start(0)])
        #expect(s.cancel(reason: "stop") == [])
        #expect(s.taskFinished(0, .cancelled) == [.skip(1, reason: "stop"), .ready(2), .start(2)])
        // What needs the cleanup is skipped, whatever its `when`.
        #expect(s.taskFinished(2, .succeeded) == [.skip(3, reason: "stop"), .skip(4, reason: "stop"), .finish(.cancelled)])
    }

    @Test func cleanupStartsWithNothingRunningAndThePauseEnds() {
        var s = Scheduler([.t(), .t(0, when: .always)], global: 1)
        _ = s.suspend()
        #expect(s.begin() == [.ready(0)])
        #expect(s.cancel(reason: "stop") == [.skip(0, reason: "stop"), .ready(1), .start(1)])
        #expect(!s.isSuspended)
        #expect(s.taskFinished(1, .succeeded) == [.finish(.cancelled)])
    }

    @Test func closingCleanupSkipsWhatHasNotStartedAndStartsNoMore() {
        // One slot: t1 and t2 (always) wait; at the grace deadline t2 has not started.
        var s = Scheduler([.t(), .t(0, when: .always), .t(0, when: .always), .t(1, when: .always)], global: 1)
        #expect(s.begin() == [.ready(0), .start(0)])
        #expect(s.cancel(reason: "stop") == [])
        #expect(s.taskFinished(0, .cancelled) == [.ready(1), .ready(2), .start(1)])
        #expect(s.closeCleanup(reason: "late") == [.skip(2, reason: "late")])
        #expect(s.closeCleanup(reason: "again") == [])
        #expect(s.taskFinished(1, .cancelled) == [.skip(3, reason: "late"), .finish(.cancelled)])
    }

    @Test func closingCleanupDoesNothingWithoutACancel() {
        var s = Scheduler([.t(), .t(0, when: .always)], global: 1)
        #expect(s.begin() == [.ready(0), .start(0)])
        #expect(s.closeCleanup(reason: "late") == [])
        #expect(s.taskFinished(0, .succeeded) == [.ready(1), .start(1)])
    }

    @Test func aCancelWithoutCleanupSkipsAlwaysTasksToo() {
        var s = Scheduler([.t(), .t(0, when: .always), .t(when: .always)], global: 1)
        #expect(s.begin() == [.ready(0), .ready(2), .start(0)])
        #expect(s.cancel(reason: "quit (SIGQUIT)", withCleanup: false) == [.skip(2, reason: "quit (SIGQUIT)")])
        #expect(s.taskFinished(0, .cancelled) == [.skip(1, reason: "quit (SIGQUIT)"), .finish(.cancelled)])
    }

    @Test func theUnfinishedAlwaysTasksAreTheCleanupToCome() {
        var s = Scheduler([.t(when: .always), .t(when: .always), .t(1, when: .always), .t()], global: 2)
        _ = s.begin()
        #expect(s.unfinishedAlwaysTasks == [0, 1, 2])
        _ = s.taskFinished(0, .succeeded)
        #expect(s.unfinishedAlwaysTasks == [1, 2])
    }

    @Test func suspendHoldsStartsAndResumeStartsWhatIsReady() {
        var s = Scheduler([.t(), .t(), .t(), .t(0)], global: 2)
        #expect(s.begin() == readies(0..<3) + [.start(0), .start(1)])
        let first = s.suspend(), second = s.suspend()
        #expect(first && !second)
        #expect(s.isSuspended)
        #expect(s.taskFinished(0, .succeeded) == [.ready(3)])
        #expect(s.taskFinished(1, .succeeded) == [])
        #expect(s.resume() == [.start(2), .start(3)])
        #expect(!s.isSuspended)
        #expect(s.resume() == [])
        #expect(s.taskFinished(3, .succeeded) == [])
        #expect(s.taskFinished(2, .succeeded) == [.finish(.succeeded)])
    }

    @Test func emptyGraphFinishesAtBegin() {
        var s = Scheduler([], global: 1)
        #expect(s.begin() == [.finish(.succeeded)])
    }
}
