import FlowModel
import FlowTestSupport
import Foundation
import Testing

@testable import FlowEngine

/// A task's attempts as the engine drives them: `TaskOperation` and its `AttemptMachine` on a
/// manual loop, with attempts the test ends by hand. No process runs and no time passes.
final class AttemptHarness: @unchecked Sendable {
    let loop = ManualRunLoop(now: 1_000_000)
    let runner: FakeTaskRunner
    let operation: TaskOperation
    private(set) var reports: [TaskOperation.Report] = []

    /// `fields` as in a workflow file; the back-off has no jitter.
    init(_ fields: String, graceMilliseconds: Int64 = 10_000) throws {
        runner = FakeTaskRunner(clock: loop)
        let box = ReportBox()
        operation = TaskOperation(
            task: try PlannedTasks.one(fields), runner: runner, loop: loop,
            bus: EventBus(sinks: []), graceMilliseconds: graceMilliseconds,
            jitter: { 1 }
        ) { box.reports.append($0) }
        self.box = box
    }

    private let box: ReportBox
    private final class ReportBox: @unchecked Sendable { var reports: [TaskOperation.Report] = [] }

    var started: Int64 { loop.now }
    var ends: [TaskEnd] { box.reports.compactMap { if case .ended(let end) = $0 { end } else { nil } } }
    var retrying: [TaskOperation.Report] { box.reports.filter { if case .retrying = $0 { true } else { false } } }
    var attempts: [FakeTaskRunner.Attempt] { runner.attempts }
    var running: FakeTaskRunner.Attempt { get throws { try #require(runner.running) } }

    func start() { operation.start() }

    /// Cancels as a signal does (from another thread), and lets the loop run what it posted.
    func cancel(_ reason: String = "interrupted") {
        operation.cancelRun(reason: reason)
        loop.runPosted()
    }
}

private let exit1 = AttemptResult.failed(reason: "exited with status 1", exitCode: 1)
private let killed = AttemptResult.failed(reason: "killed by signal SIGKILL (9)", exitCode: nil)

@Suite struct TaskAttemptsTests {
    // MARK: Retries

    /// `retries` extra attempts after a failed one: exactly retries + 1 attempts, then failed.
    @Test(arguments: [0, 1, 3])
    func aTaskThatKeepsFailingRunsRetriesPlusOneAttempts(retries: Int) throws {
        let h = try AttemptHarness("retries: \(retries), retry_delay: 1s")
        let begun = h.loop.now
        h.start()
        for attempt in 1...(retries + 1) {
            let running = try h.running
            #expect(running.number == attempt)
            running.end(exit1)
            h.loop.advance(by: 60_000)  // past any back-off
        }
        #expect(h.attempts.count == retries + 1)
        #expect(h.runner.running == nil)
        // The back-off doubles from retry_delay: 1 s, 2 s, 4 s, each waited out.
        let delays = (0..<retries).map { Int64(1000) << $0 }
        #expect(h.retrying == delays.enumerated().map { .retrying(attempt: $0 + 1, delayMilliseconds: $1, reason: "exited with status 1", exitCode: 1) })
        #expect(
            h.ends == [
                .failed(
                    attempts: retries + 1, durationMilliseconds: h.loop.now - 60_000 - begun,
                    reason: "exited with status 1", exitCode: 1)
            ])
        #expect(h.loop.armedDeadlines.isEmpty)
    }

    @Test func aRetryStartsWhenItsBackOffIsOverAndNotBefore() throws {
        let h = try AttemptHarness("retries: 1, retry_delay: 3s")
        h.start()
        try h.running.end(exit1)
        h.loop.advance(by: 2_999)
        #expect(h.attempts.count == 1)
        h.loop.advance(by: 1)
        #expect(h.attempts.count == 2)
        try h.running.end(.succeeded)
        #expect(h.ends == [.succeeded(attempts: 2, durationMilliseconds: 3_000)])
    }

    @Test func cancelDuringBackOffEndsAtOnceWithNoNewAttempt() throws {
        let h = try AttemptHarness("retries: 2, retry_delay: 5s")
        h.start()
        try h.running.end(exit1)
        #expect(h.retrying.count == 1)
        h.loop.advance(by: 1_000)
        h.cancel("interrupted")
        #expect(h.ends == [.cancelled(reason: "interrupted")])
        #expect(h.loop.armedDeadlines.isEmpty)
        h.loop.advance(by: 120_000)
        #expect(h.attempts.count == 1)
        #expect(h.ends.count == 1)
    }

    // MARK: Fail-fast

    /// Once fail-fast has stopped the run, a task waiting to retry starts no new attempt: it
    /// ends failed at once, with the failure it waited to retry.
    @Test func failFastDuringBackOffEndsTheTaskFailedWithNoNewAttempt() throws {
        let h = try AttemptHarness("retries: 3, retry_delay: 5s")
        h.start()
        let begun = h.loop.now
        h.loop.advance(by: 700)
        try h.running.end(exit1)
        h.loop.advance(by: 1_000)
        h.operation.stopRetrying(reason: "an earlier task failed (fail_fast)")
        h.loop.runPosted()
        let reason = "exited with status 1; not retried: an earlier task failed (fail_fast)"
        #expect(h.ends == [.failed(attempts: 1, durationMilliseconds: h.loop.now - 1_000 - begun, reason: reason, exitCode: 1)])
        #expect(h.loop.armedDeadlines.isEmpty)
        h.loop.advance(by: 120_000)
        #expect(h.attempts.count == 1)
        #expect(h.ends.count == 1)
    }

    /// A running attempt finishes, as the spec says running tasks do; if it fails, it is the last.
    @Test(arguments: [AttemptResult.succeeded, exit1])
    func failFastLetsTheRunningAttemptFinishButRetriesNone(result: AttemptResult) throws {
        let h = try AttemptHarness("retries: 3, retry_delay: 1s")
        h.start()
        h.operation.stopRetrying(reason: "an earlier task failed (fail_fast)")
        h.loop.runPosted()
        #expect(try h.running.signals.isEmpty)
        try h.running.end(result)
        h.loop.advance(by: 120_000)
        #expect(h.attempts.count == 1)
        #expect(h.retrying.isEmpty)
        if result == .succeeded {
            #expect(h.ends == [.succeeded(attempts: 1, durationMilliseconds: 0)])
        } else {
            let reason = "exited with status 1; not retried: an earlier task failed (fail_fast)"
            #expect(h.ends == [.failed(attempts: 1, durationMilliseconds: 0, reason: reason, exitCode: 1)])
        }
    }

    // MARK: Timeout and grace

    /// SIGTERM (with SIGCONT) at the timeout, SIGKILL once `--grace` more has passed.
    @Test(arguments: [Int64(2_000), 30_000])
    func aTimedOutAttemptGetsTheConfiguredGraceBeforeSigkill(grace: Int64) throws {
        let h = try AttemptHarness("timeout: 5s", graceMilliseconds: grace)
        let begun = h.loop.now
        h.start()
        let attempt = try h.running
        h.loop.advance(by: 5_000)
        #expect(attempt.signals.map(\.signal) == [.terminate])
        #expect(attempt.signals.map(\.at) == [begun + 5_000])
        h.loop.advance(by: grace - 1)
        #expect(attempt.signals.count == 1, "SIGKILL before the grace period is over")
        h.loop.advance(by: 1)
        #expect(attempt.signals.map(\.signal) == [.terminate, .kill])
        #expect(attempt.signals.last?.at == begun + 5_000 + grace)
        attempt.end(killed)
        #expect(h.ends == [.failed(attempts: 1, durationMilliseconds: 5_000 + grace, reason: "timed out after 5s", exitCode: nil)])
    }

    @Test func aTimedOutAttemptThatStopsWithinItsGraceIsNotKilled() throws {
        let h = try AttemptHarness("timeout: 1s", graceMilliseconds: 30_000)
        h.start()
        let attempt = try h.running
        h.loop.advance(by: 1_000)
        h.loop.advance(by: 20_000)  // its cleanup takes 20 s
        attempt.end(.failed(reason: "exited with status 143", exitCode: 143))
        h.loop.advance(by: 60_000)
        #expect(attempt.signals.map(\.signal) == [.terminate])
        #expect(h.ends == [.failed(attempts: 1, durationMilliseconds: 21_000, reason: "timed out after 1s", exitCode: nil)])
        #expect(h.loop.armedDeadlines.isEmpty)
    }

    @Test func aTimeoutIsRetriedAndEachAttemptHasItsOwnTimeout() throws {
        let h = try AttemptHarness("timeout: 1s, retries: 1, retry_delay: 1s")
        h.start()
        h.loop.advance(by: 1_000)
        try h.running.end(.failed(reason: "killed by signal SIGTERM (15)", exitCode: nil))
        #expect(h.retrying == [.retrying(attempt: 1, delayMilliseconds: 1_000, reason: "timed out after 1s")])
        h.loop.advance(by: 1_000)
        let second = try h.running
        h.loop.advance(by: 999)
        #expect(second.signals.isEmpty)
        second.end(.succeeded)
        #expect(h.ends == [.succeeded(attempts: 2, durationMilliseconds: 2_999)])
    }

    @Test func anAttemptThatEndsBeforeItsTimeoutLeavesNoTimerBehind() throws {
        let h = try AttemptHarness("timeout: 1h")
        h.start()
        #expect(h.loop.armedDeadlines.count == 1)
        try h.running.end(.succeeded)
        #expect(h.loop.armedDeadlines.isEmpty)
    }

    // MARK: Cancel

    @Test(arguments: [Int64(2_000), 30_000])
    func aCancelledAttemptGetsTheConfiguredGraceBeforeSigkill(grace: Int64) throws {
        let h = try AttemptHarness("", graceMilliseconds: grace)
        let begun = h.loop.now
        h.start()
        let attempt = try h.running
        h.loop.advance(by: 100)
        h.cancel("terminated")
        #expect(attempt.signals.map(\.signal) == [.terminate])
        h.loop.advance(by: grace - 1)
        #expect(attempt.signals.count == 1)
        h.loop.advance(by: 1)
        #expect(attempt.signals.map(\.signal) == [.terminate, .kill])
        #expect(attempt.signals.map(\.at) == [begun + 100, begun + 100 + grace])
        attempt.end(killed)
        #expect(h.ends == [.cancelled(reason: "terminated")])
    }

    /// It succeeded (or failed) as SIGTERM came: the run is cancelled, and so is the task, once.
    @Test(arguments: [AttemptResult.succeeded, exit1])
    func anAttemptThatEndsWhileBeingCancelledEndsTheTaskAsCancelledOnce(result: AttemptResult) throws {
        let h = try AttemptHarness("retries: 3, retry_delay: 1s, timeout: 1m")
        h.start()
        let attempt = try h.running
        h.cancel()
        attempt.end(result)
        h.loop.advance(by: 600_000)
        #expect(h.ends == [.cancelled(reason: "interrupted")])
        #expect(attempt.signals.map(\.signal) == [.terminate], "no SIGKILL once it has ended")
        #expect(h.attempts.count == 1)
        #expect(h.loop.armedDeadlines.isEmpty)
    }

    /// The attempt ends on the loop while the cancel, posted from the signal thread, waits to run.
    @Test func anAttemptThatFailsJustBeforeTheCancelArrivesIsNotRetried() throws {
        let h = try AttemptHarness("retries: 3, retry_delay: 1s")
        h.start()
        let attempt = try h.running
        h.operation.cancelRun(reason: "interrupted")
        attempt.end(exit1)
        h.loop.advance(by: 60_000)
        #expect(h.attempts.count == 1)
        #expect(h.ends == [.cancelled(reason: "interrupted")])
    }

    @Test func aCancelDuringATimeoutsGraceKeepsItsDeadlineAndEndsAsCancelled() throws {
        let h = try AttemptHarness("timeout: 1s", graceMilliseconds: 5_000)
        h.start()
        let attempt = try h.running
        h.loop.advance(by: 1_000)
        h.loop.advance(by: 2_000)
        h.cancel()
        h.loop.advance(by: 3_000)
        #expect(attempt.signals.map(\.signal) == [.terminate, .kill])
        #expect(attempt.signals.last?.at == attempt.startedAt + 6_000)
        attempt.end(killed)
        #expect(h.ends == [.cancelled(reason: "interrupted")])
    }

    @Test func aTaskCancelledBeforeItStartsRunsNoAttempt() throws {
        let h = try AttemptHarness("")
        h.cancel()
        h.start()
        #expect(h.attempts.isEmpty)
        #expect(h.ends == [.cancelled(reason: "interrupted")])
        #expect(h.operation.isFinished)
    }

    /// A second Ctrl-C while cleanup runs cancels and kills it at once: the SIGKILL can bring
    /// the attempt's end to the loop before the cancel posted just before it.
    @Test func aKilledAttemptWhoseCancelHasNotReachedTheLoopEndsCancelledNotFailed() throws {
        let h = try AttemptHarness("")
        h.start()
        let attempt = try h.running
        h.operation.cancelRun(reason: "interrupted (SIGINT)")
        h.operation.killRun()
        attempt.end(killed)
        h.loop.runPosted()
        #expect(h.ends == [.cancelled(reason: "interrupted (SIGINT)")])
        #expect(h.loop.armedDeadlines.isEmpty)
    }

    @Test func aSecondCtrlCKillsAtOnce() throws {
        let h = try AttemptHarness("")
        h.start()
        let attempt = try h.running
        h.cancel()
        h.operation.killRun()
        #expect(attempt.signals.map(\.signal) == [.terminate, .kill], "killed without waiting for the loop")
        #expect(attempt.signals.map(\.at) == [h.loop.now, h.loop.now])
    }

    /// A kill that comes while the attempt is being started (its child already runs, its
    /// handle is not known yet) kills it as soon as it is: missed, a task that ignores the
    /// cancel's SIGTERM ran on for the whole grace period.
    @Test func aKillWhileTheAttemptStartsKillsItOnceItsHandleIsKnown() throws {
        let h = try AttemptHarness("", graceMilliseconds: 600_000)
        h.runner.whileStarting = { _ in
            h.operation.cancelRun(reason: "quit (SIGQUIT)")
            h.operation.killRun()
        }
        h.start()
        let attempt = try h.running
        #expect(attempt.signals.map(\.signal) == [.kill], "at once, without the loop")
        h.loop.runPosted()
        attempt.end(killed)
        h.loop.runPosted()
        #expect(h.ends == [.cancelled(reason: "quit (SIGQUIT)")])
        #expect(h.loop.armedDeadlines.isEmpty)
    }

    /// A hang-up that comes while the attempt is being started (its child already runs, its
    /// handle is not known yet) reaches it as soon as it is, as a terminal's hang-up reaches
    /// every process of its job: missed, a task's `trap ... HUP` never ran.
    @Test func aHangUpWhileTheAttemptStartsReachesItOnceItsHandleIsKnown() throws {
        let h = try AttemptHarness("")
        h.runner.whileStarting = { _ in
            h.operation.cancelRun(reason: "hung up (SIGHUP)")
            h.operation.hangUpRun()
        }
        h.start()
        let attempt = try h.running
        #expect(attempt.signals.map(\.signal) == [.hangUp], "at once, without the loop")
        h.loop.runPosted()
        #expect(attempt.signals.map(\.signal) == [.hangUp, .terminate])
        attempt.end(.failed(reason: "killed by signal SIGHUP (1)", exitCode: nil))
        h.loop.runPosted()
        #expect(h.ends == [.cancelled(reason: "hung up (SIGHUP)")])
    }

    /// A hang-up reaches the attempt that runs when it comes, not one started after it (a
    /// cleanup task goes on after a hang-up and may retry).
    @Test func aHangUpReachesTheRunningAttemptAndNotTheRetry() throws {
        let h = try AttemptHarness("retries: 1, retry_delay: 1s")
        h.start()
        let first = try h.running
        h.operation.hangUpRun()
        #expect(first.signals.map(\.signal) == [.hangUp])
        first.end(.failed(reason: "killed by signal SIGHUP (1)", exitCode: nil))
        h.loop.advance(by: 1_000)
        #expect(try h.running.number == 2)
        #expect(try h.running.signals.isEmpty)
    }

    /// A hang-up while an attempt is being started that ends inside its start (it could not
    /// spawn): nothing is left of it to hang up, and the retry, started later, is not hung up.
    @Test func aHangUpWhileAnAttemptFailsToStartDoesNotReachTheRetry() throws {
        let h = try AttemptHarness("retries: 1, retry_delay: 1s")
        h.runner.whileStarting = { attempt in
            guard attempt.number == 1 else { return }
            h.operation.hangUpRun()
            attempt.end(.failed(reason: "cannot run x: no such file", exitCode: nil))
        }
        h.start()
        #expect(h.attempts.map(\.signals.isEmpty) == [true])
        h.loop.advance(by: 1_000)
        #expect(try h.running.number == 2)
        #expect(try h.running.signals.isEmpty)
    }

    // MARK: Advice from the runner

    /// A download's 503 with Retry-After: 30 waits 30 s, not the 1 s back-off; its 404 then
    /// ends the task with two retries still left.
    @Test func aRunnersRetryAdviceGovernsTheNextAttempt() throws {
        let h = try AttemptHarness("retries: 3, retry_delay: 1s")
        h.start()
        try h.running.end(.failedAdvising(reason: "HTTP 503 Service Unavailable", retryable: true, notBeforeMilliseconds: 30_000))
        #expect(h.retrying == [.retrying(attempt: 1, delayMilliseconds: 30_000, reason: "HTTP 503 Service Unavailable")])
        h.loop.advance(by: 29_999)
        #expect(h.attempts.count == 1)
        h.loop.advance(by: 1)
        #expect(try h.running.number == 2)
        try h.running.end(.failedAdvising(reason: "HTTP 404 Not Found", retryable: false, notBeforeMilliseconds: nil))
        #expect(h.attempts.count == 2)
        #expect(h.ends.count == 1)
        #expect(h.loop.armedDeadlines.isEmpty)
    }
}
