import FlowModel
import FlowTestSupport
import Testing

@testable import FlowEngine

private let exit1 = AttemptResult.failed(reason: "exited with status 1", exitCode: 1)
private let killed = AttemptResult.failed(reason: "killed by signal SIGKILL (9)", exitCode: nil)
private let interrupted = "interrupted (SIGINT)"

/// The engine's rules over a whole run, on a manual loop with a fake runner (`EngineHarness`):
/// limits, order, dependencies, retries, timeouts, cancel and cleanup, suspension, fail-fast.
/// The scheduler's and the attempt machine's own rules have their tests; these check that the
/// engine performs them, as the event stream shows.
@Suite struct EngineTests {
    // MARK: Limits and order

    @Test func theGlobalLimitHoldsAndEachEndFreesASlotForTheNextTask() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 2
            tasks: {a: {shell: x}, b: {shell: x}, c: {shell: x}, d: {shell: x}, e: {shell: x}}
            """)
        h.start()
        #expect(h.running == ["a", "b"])
        try h.end("b")
        #expect(h.running == ["a", "c"])
        try h.end("a")
        #expect(h.running == ["c", "d"])
        try h.end("d")
        try h.end("c")
        #expect(h.running == ["e"])
        #expect(h.finished.isEmpty)
        try h.end("e")
        #expect(h.started == ["a", "b", "c", "d", "e"])
        #expect(h.loop.queues.map(\.peakInFlight) == [2])
        #expect(h.finished == [.succeeded])
        #expect(h.engine.status == .succeeded)
        #expect(h.workflowFinished?.counts.succeeded == 5)
    }

    /// A queue of concurrency 1 inside a global limit of 3: its tasks run one at a time while
    /// the default queue's fill the other slots.
    @Test func aNamedQueuesLimitHoldsInsideTheGlobalOne() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 3
            queues: {net: {concurrency: 1}}
            tasks:
              n1: {shell: x, queue: net}
              n2: {shell: x, queue: net}
              n3: {shell: x, queue: net}
              d1: {shell: x}
              d2: {shell: x}
              d3: {shell: x}
            """)
        h.start()
        #expect(h.running == ["n1", "d1", "d2"])
        try h.end("d1")
        #expect(h.running == ["n1", "d2", "d3"], "n2 waits for the net queue, not for the global limit")
        try h.end("n1")
        #expect(h.running == ["d2", "d3", "n2"])
        try h.end("d2")
        try h.end("d3")
        #expect(h.running == ["n2"])
        try h.end("n2")
        try h.end("n3")
        #expect(h.loop.queues.map(\.name) == ["default", "net"])
        #expect(h.loop.queues.map(\.peakInFlight) == [2, 1])
        #expect(h.finished == [.succeeded])
    }

    /// Ready tasks start by priority, then file order; a task that becomes ready later with a
    /// higher priority goes before those that waited longer.
    @Test func readyTasksStartByPriorityThenFileOrder() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 1
            tasks:
              first: {shell: x, priority: very-high}
              low: {shell: x, priority: low}
              plain: {shell: x}
              high: {shell: x, priority: high}
              urgent: {shell: x, priority: very-high, needs: [first]}
            """)
        h.start()
        #expect(h.running == ["first"])
        for task: TaskID in ["first", "urgent", "high", "plain", "low"] { try h.end(task) }
        #expect(h.started == ["first", "urgent", "high", "plain", "low"])
        #expect(h.finished == [.succeeded])
    }

    @Test func aTaskStartsOnlyOnceItsNeedsInOtherQueuesHaveSucceeded() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 4
            queues: {net: {concurrency: 2}, build: {concurrency: 2}}
            tasks:
              fetch: {shell: x, queue: net}
              compile: {shell: x, queue: build, needs: [fetch]}
              check: {shell: x, needs: [compile]}
            """)
        h.start()
        #expect(h.running == ["fetch"])
        try h.end("fetch")
        #expect(h.running == ["compile"])
        try h.end("compile")
        #expect(h.running == ["check"])
        let fetched = try #require(h.position(of: .taskSucceeded(task: "fetch", attempts: 1, durationMilliseconds: 0)))
        let ready = try #require(h.position(of: .taskReady(task: "compile")))
        let started = try #require(h.position(of: .taskStarted(task: "compile", attempt: 1, kind: "shell")))
        #expect(fetched < ready && ready < started)
        try h.end("check")
        #expect(h.finished == [.succeeded])
    }

    /// A task the gate finds up to date ends skipped without an attempt, and its dependents go on.
    @Test func aTaskTheGateSkipsRunsNoAttemptAndCountsAsASuccessForItsDependents() throws {
        let gate = SkippingGate(skipping: [0])
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 1
            tasks: {made: {shell: x}, uses: {shell: x, needs: [made]}}
            """, gate: gate)
        h.start()
        #expect(h.started == ["uses"])
        #expect(h.finalEvent(of: "made") == .taskSkipped(task: "made", reason: SkipReason.upToDate))
        try h.end("uses")
        #expect(gate.succeeded == [1])
        #expect(h.workflowFinished?.counts.upToDate == 1)
        #expect(h.finished == [.succeeded])
    }

    // MARK: Retries and timeouts, on the loop's clock

    @Test func aFailedAttemptIsRetriedAfterItsBackOffAndItsDependentWaitsForTheLastOne() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 2
            tasks:
              flaky: {shell: x, retries: 2, retry_delay: 2s}
              after: {shell: x, needs: [flaky]}
            """)
        h.start()
        try h.end("flaky", exit1)
        #expect(h.events.last == .taskRetrying(task: "flaky", attempt: 1, delayMilliseconds: 2_000, reason: "exited with status 1", exitCode: 1))
        h.advance(by: 1_999)
        #expect(h.running.isEmpty)
        h.advance(by: 1)
        #expect(h.running == ["flaky"])
        #expect(h.events.last == .taskStarted(task: "flaky", attempt: 2, kind: "shell"))
        try h.end("flaky", exit1)
        h.advance(by: 3_999)
        #expect(h.running.isEmpty, "the back-off doubles")
        h.advance(by: 1)
        try h.end("flaky")
        #expect(h.finalEvent(of: "flaky") == .taskSucceeded(task: "flaky", attempts: 3, durationMilliseconds: 6_000))
        #expect(h.started == ["flaky", "flaky", "flaky", "after"])
        h.advance(by: 500)
        try h.end("after")
        #expect(h.workflowFinished?.status == .succeeded)
        #expect(h.workflowFinished?.durationMilliseconds == 6_500)
    }

    @Test func aTimedOutTaskIsStoppedThenKilledAfterTheGraceAndFailsTheRun() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 1
            tasks: {slow: {shell: x, timeout: 5s}}
            """, grace: 3)
        h.start()
        let attempt = try h.attempt("slow")
        h.advance(by: 5_000)
        #expect(attempt.signals.map(\.signal) == [.terminate])
        h.advance(by: 2_999)
        #expect(attempt.signals.count == 1)
        h.advance(by: 1)
        #expect(attempt.signals.map(\.signal) == [.terminate, .kill])
        try h.end("slow", killed)
        #expect(
            h.finalEvent(of: "slow")
                == .taskFailed(task: "slow", attempts: 1, durationMilliseconds: 8_000, reason: "timed out after 5s", exitCode: nil))
        #expect(h.finished == [.failed])
    }

    // MARK: Cancel, cleanup and kill

    /// Ctrl-C: the running task gets SIGTERM, waiting tasks are skipped, and the `when: always`
    /// task starts as cleanup once its need has ended; still running when the grace period is
    /// over, it is stopped as a timed-out task is: SIGTERM, then SIGKILL a grace period later.
    @Test func aCancelStopsTheRunAndCleanupRunsUntilTheGracePeriodIsOver() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 2
            tasks:
              build: {shell: x}
              deploy: {shell: x, needs: [build]}
              tidy: {shell: x, needs: [build], when: always}
            """, grace: 10)
        h.start()
        let build = try h.attempt("build")
        h.advance(by: 1_000)
        #expect(h.engine.cancel(reason: interrupted), "there is cleanup to run")
        h.loop.runPosted()
        #expect(h.events.contains(.workflowCleanup(reason: interrupted, tasks: ["tidy"])))
        #expect(build.signals.map(\.signal) == [.terminate])
        h.advance(by: 2_000)
        try h.end("build", .failed(reason: "killed by signal SIGTERM (15)", exitCode: nil))
        #expect(h.finalEvent(of: "build") == .taskCancelled(task: "build", reason: interrupted))
        #expect(h.finalEvent(of: "deploy") == .taskSkipped(task: "deploy", reason: interrupted))
        #expect(h.running == ["tidy"])
        let tidy = try h.attempt("tidy")
        h.advance(by: 7_999)
        #expect(tidy.signals.isEmpty, "cleanup has the grace period from the cancel")
        h.advance(by: 1)
        #expect(tidy.signals.map(\.signal) == [.terminate])
        h.advance(by: 10_000)
        #expect(tidy.signals.map(\.signal) == [.terminate, .kill])
        #expect(h.finished.isEmpty)
        try h.end("tidy", killed)
        #expect(h.finalEvent(of: "tidy") == .taskCancelled(task: "tidy", reason: CleanupRule.overrunReason(grace: 10)))
        #expect(h.finished == [.cancelled])
        #expect(h.workflowFinished?.counts.cancelled == 2)
    }

    /// A cleanup task whose need outlives the grace period never starts.
    @Test func cleanupWhoseNeedEndsAfterTheGracePeriodIsSkipped() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 2
            tasks:
              stubborn: {shell: x}
              tidy: {shell: x, needs: [stubborn], when: always}
            """, grace: 5)
        h.start()
        let stubborn = try h.attempt("stubborn")
        h.engine.cancel(reason: interrupted)
        h.advance(by: 5_000)
        #expect(stubborn.signals.map(\.signal) == [.terminate, .kill])
        try h.end("stubborn", killed)
        #expect(h.finalEvent(of: "stubborn") == .taskCancelled(task: "stubborn", reason: interrupted))
        #expect(h.finalEvent(of: "tidy") == .taskSkipped(task: "tidy", reason: CleanupRule.lateReason(grace: 5)))
        #expect(h.started == ["stubborn"])
        #expect(h.finished == [.cancelled])
    }

    /// A second Ctrl-C kills the cleanup at once and starts nothing more.
    @Test func aKillDuringCleanupKillsAtOnceAndStartsNothingMore() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 1
            tasks:
              tidy: {shell: x, when: always}
              after: {shell: x, needs: [tidy], when: always}
            """)
        h.start()
        let tidy = try h.attempt("tidy")
        h.engine.cancel(reason: interrupted)
        h.loop.runPosted()
        #expect(tidy.signals.isEmpty, "running cleanup goes on")
        h.advance(by: 1_000)
        h.engine.kill(reason: "killed (SIGINT)")
        #expect(tidy.signals.map(\.signal) == [.kill], "at once, without the loop")
        try h.end("tidy", killed)
        #expect(h.finalEvent(of: "tidy") == .taskCancelled(task: "tidy", reason: "killed (SIGINT)"))
        #expect(h.finalEvent(of: "after") == .taskSkipped(task: "after", reason: "killed (SIGINT)"))
        #expect(h.started == ["tidy"])
        #expect(h.finished == [.cancelled])
    }

    /// A SIGQUIT (cancel without cleanup, then kill, as `RunSignals` does it) while the task's
    /// spawn is under way: the task is killed once its attempt is known, and ends cancelled.
    /// Missed, a task that ignores SIGTERM ran on until flowrun's exit deadline, which left
    /// the run without its final events (SignalTests.quitKillsAtOnce, once, under load).
    @Test func aKillWhileATaskIsBeingSpawnedKillsIt() throws {
        let h = try EngineHarness("version: 1\ntasks:\n  deaf: {shell: x}\n", grace: 600)
        h.runner.whileStarting = { _ in
            h.engine.cancel(reason: "quit (SIGQUIT)", withCleanup: false)
            h.engine.kill(reason: "quit (SIGQUIT)")
        }
        h.start()
        let deaf = try h.attempt("deaf")
        #expect(deaf.signals.first?.signal == .kill)
        try h.end("deaf", killed)
        #expect(h.finalEvent(of: "deaf") == .taskCancelled(task: "deaf", reason: "quit (SIGQUIT)"))
        #expect(h.finished == [.cancelled])
        #expect(h.loop.armedDeadlines.isEmpty)
    }

    /// The same kill while the task's operation is queued and not yet started on the loop.
    @Test func aKillBeforeAQueuedTaskStartsKillsItsAttempt() throws {
        let h = try EngineHarness("version: 1\ntasks:\n  deaf: {shell: x}\n", grace: 600)
        h.engine.start()  // the loop has not run: the operation waits on it
        h.engine.cancel(reason: "quit (SIGQUIT)", withCleanup: false)
        h.engine.kill(reason: "quit (SIGQUIT)")
        h.loop.runPosted()
        if let deaf = h.runner.attempts.first {
            #expect(deaf.signals.first?.signal == .kill)
            try h.end("deaf", killed)
        }
        #expect(h.finalEvent(of: "deaf") == .taskCancelled(task: "deaf", reason: "quit (SIGQUIT)"))
        #expect(h.workflowFinished?.status == .cancelled)
        #expect(h.loop.armedDeadlines.isEmpty)
    }

    /// A SIGHUP (`RunSignals`: a cancel that hangs up) while a task's spawn is under way: the
    /// task gets SIGHUP once its attempt is known, as does cleanup already running; cleanup the
    /// cancel starts does not (SignalTests.aHangUpCancelsTheRunAndReachesTheTasks could miss
    /// the task being spawned: its `trap ... HUP` never ran).
    @Test func aHangUpWhileATaskIsBeingSpawnedReachesIt() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 3
            tasks:
              tidy: {shell: x, when: always}
              spawning: {shell: x}
              late: {shell: x, needs: [spawning], when: always}
            """)
        h.runner.whileStarting = { attempt in
            if attempt.task == "spawning" { h.engine.cancel(reason: "hung up (SIGHUP)", hangingUp: true) }
        }
        h.start()
        #expect(h.started == ["tidy", "spawning"])
        let spawning = try h.attempt("spawning")
        let tidy = try h.attempt("tidy")
        #expect(spawning.signals.map(\.signal) == [.hangUp, .terminate])
        #expect(tidy.signals.map(\.signal) == [.hangUp], "running cleanup is hung up, not cancelled")
        try h.end("spawning", .failed(reason: "killed by signal SIGHUP (1)", exitCode: nil))
        #expect(h.finalEvent(of: "spawning") == .taskCancelled(task: "spawning", reason: "hung up (SIGHUP)"))
        let late = try h.attempt("late")
        #expect(late.signals.isEmpty, "cleanup started after the hang-up")
        try h.end("tidy")
        try h.end("late")
        #expect(h.finished == [.cancelled])
    }

    /// A cancel with no cleanup to run, before the run ends: it ends once the running tasks do.
    @Test func aCancelWithoutCleanupEndsTheRunWhenTheRunningTaskEnds() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 1
            tasks: {a: {shell: x}, b: {shell: x}}
            """)
        h.start()
        #expect(!h.engine.cancel(reason: interrupted))
        #expect(h.finalEvent(of: "b") == .taskSkipped(task: "b", reason: interrupted))
        h.loop.runPosted()
        #expect(h.finished.isEmpty)
        try h.end("a", .failed(reason: "killed by signal SIGTERM (15)", exitCode: nil))
        #expect(h.finalEvent(of: "a") == .taskCancelled(task: "a", reason: interrupted))
        #expect(h.finished == [.cancelled])
    }

    // MARK: Suspend and resume

    @Test func aSuspendedRunStartsNothingUntilItIsResumed() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 1
            tasks: {a: {shell: x}, b: {shell: x}}
            """)
        h.start()
        h.engine.suspend()
        #expect(h.events.last == .queueSuspended)
        try h.end("a")
        h.advance(by: 3_600_000)
        #expect(h.running.isEmpty)
        #expect(h.finished.isEmpty)
        #expect(try h.attempt("a").signals.isEmpty, "a running task goes on while suspended")
        h.engine.resume()
        #expect(h.events.contains(.queueResumed))
        h.loop.runPosted()
        #expect(h.running == ["b"])
        try h.end("b")
        #expect(h.finished == [.succeeded])
    }

    /// A task waiting to retry starts no attempt while suspended either (`kill -USR1`, the `p`
    /// key: "none starts"); its next attempt starts once resumed, at once if its back-off is over.
    @Test func aRetryDueWhileSuspendedWaitsForTheResume() throws {
        let h = try EngineHarness(
            """
            version: 1
            tasks: {flaky: {shell: x, retries: 1, retry_delay: 2s}}
            """)
        h.start()
        try h.end("flaky", exit1)
        h.engine.suspend()
        h.loop.runPosted()
        h.advance(by: 3_600_000)
        #expect(h.running.isEmpty, "no attempt starts while suspended")
        #expect(h.started == ["flaky"])
        h.engine.resume()
        h.loop.runPosted()
        #expect(h.running == ["flaky"])
        #expect(h.events.last == .taskStarted(task: "flaky", attempt: 2, kind: "shell"))
        try h.end("flaky")
        #expect(h.finalEvent(of: "flaky") == .taskSucceeded(task: "flaky", attempts: 2, durationMilliseconds: 3_600_000))
    }

    /// A cancel ends the suspension for a cleanup task waiting to retry too.
    @Test func aCleanupRetryHeldBySuspensionStartsOnCancel() throws {
        let h = try EngineHarness(
            """
            version: 1
            tasks: {tidy: {shell: x, when: always, retries: 1, retry_delay: 1s}}
            """)
        h.start()
        try h.end("tidy", exit1)
        h.engine.suspend()
        h.loop.runPosted()
        h.advance(by: 5_000)
        #expect(h.running.isEmpty)
        h.engine.cancel(reason: interrupted)
        h.loop.runPosted()
        #expect(h.running == ["tidy"])
        try h.end("tidy")
        #expect(h.finalEvent(of: "tidy") == .taskSucceeded(task: "tidy", attempts: 2, durationMilliseconds: 5_000))
    }

    /// A cancel ends the suspension: the cleanup must run, and it does once a slot is free.
    @Test func aCancelWhileSuspendedStillRunsTheCleanup() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 1
            tasks: {a: {shell: x}, b: {shell: x}, tidy: {shell: x, when: always}}
            """)
        h.start()
        h.engine.suspend()
        h.engine.cancel(reason: interrupted)
        h.loop.runPosted()
        #expect(try h.attempt("a").signals.map(\.signal) == [.terminate])
        try h.end("a", .failed(reason: "killed by signal SIGTERM (15)", exitCode: nil))
        #expect(h.running == ["tidy"])
        #expect(h.finalEvent(of: "b") == .taskSkipped(task: "b", reason: interrupted))
        try h.end("tidy")
        #expect(h.finalEvent(of: "tidy") == .taskSucceeded(task: "tidy", attempts: 1, durationMilliseconds: 0))
        #expect(h.finished == [.cancelled])
    }

    // MARK: Fail-fast

    /// A failure skips what has not started; the running task finishes, but is not retried.
    @Test func failFastSkipsWaitingTasksAndRetriesNothingMore() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 2
            tasks:
              a: {shell: x}
              b: {shell: x, retries: 3}
              c: {shell: x}
              d: {shell: x, needs: [a]}
              report: {shell: x, needs: [a], when: failure}
            """)
        h.start()
        #expect(h.running == ["a", "b"])
        try h.end("a", exit1)
        #expect(h.finalEvent(of: "c") == .taskSkipped(task: "c", reason: "an earlier task failed (fail_fast)"))
        #expect(h.finalEvent(of: "d") == .taskSkipped(task: "d", reason: "needs 'a', which did not succeed"))
        #expect(h.running == ["b", "report"])
        #expect(try h.attempt("b").signals.isEmpty, "running tasks finish")
        try h.end("report")
        try h.end("b", exit1)
        #expect(
            h.finalEvent(of: "b")
                == .taskFailed(
                    task: "b", attempts: 1, durationMilliseconds: 0,
                    reason: "exited with status 1; not retried: an earlier task failed (fail_fast)", exitCode: 1))
        #expect(h.finished == [.failed])
        let counts = try #require(h.workflowFinished?.counts)
        #expect((counts.succeeded, counts.failed, counts.skipped) == (1, 2, 2))
    }

    /// `--keep-going`: the failure skips only its dependents; everything else runs.
    @Test func keepGoingRunsWhatDoesNotNeedTheFailedTask() throws {
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 1
            tasks: {a: {shell: x}, b: {shell: x}, d: {shell: x, needs: [a]}}
            """, failFast: false)
        h.start()
        try h.end("a", exit1)
        #expect(h.finalEvent(of: "d") == .taskSkipped(task: "d", reason: "needs 'a', which did not succeed"))
        #expect(h.running == ["b"])
        try h.end("b")
        #expect(h.finished == [.failed])
    }
}
