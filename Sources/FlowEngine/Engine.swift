import FlowFiles
import FlowModel
import FlowPlanning
import Foundation

/// Runs a plan: one `TaskQueue` (an `OperationQueue`) per named queue plus a default one, fed
/// by the scheduler.
///
/// corelibs' `OperationQueue` is quadratic in operations that are not ready (ARCHITECTURE.md,
/// trap 1), so an operation is created and added only when the scheduler starts its task: its
/// needs are done and a slot is free. The queues then only execute.
///
/// The run loop is the engine's (`EngineLoop`): the queues start operations on it, each task's
/// attempts, timers and signals are driven on it, and tasks report their ends on it. The
/// scheduler runs there too, under `lock`, rather than on a queue of its own: a hop to another
/// thread per task would be most of the engine's cost on graphs of small tasks; with the shell
/// runner's epoll loop, the thread that sees a child exit also starts the next task. Every
/// lifecycle event (started, retrying, the end) is posted by this class; a task's operation
/// reports them.
///
/// Events are posted to the bus under `lock`, in the scheduler's order, and handed to the sinks
/// after it is let go; on the signal thread (cancel, suspend, resume) they are written on the
/// bus's own queue, so a stdout nobody reads cannot hold up a Ctrl-C.
///
/// The engine blocks on nothing and keeps no clock or thread of its own: `start` returns at
/// once, and the run goes on as its inputs come (tasks' ends on the loop, `cancel`, `kill`,
/// `suspend`, `resume`, and the loop's timers: back-off, timeouts, the cleanup deadline).
/// So a test drives a whole run on a manual loop, in microseconds; `run()` is the command
/// line's way to wait for the end.
///
/// - Warning: all mutable state is guarded by `lock`. Calls into operations that can end them
///   at once (`cancelRun`) are made outside it, since an ending operation takes the lock.
package final class Engine: @unchecked Sendable {
    package struct Options: Sendable {
        /// The global limit.
        package var concurrency: Int
        /// false for `fail_fast: false` or `--keep-going`.
        package var failFast: Bool
        /// Seconds between SIGTERM and SIGKILL when a run is cancelled or an attempt times out.
        package var grace: Double

        package init(concurrency: Int, failFast: Bool, grace: Double = 10) {
            self.concurrency = concurrency
            self.failFast = failFast
            self.grace = grace
        }

        /// `grace` in milliseconds, clamped to what a timer can be set to.
        var graceMilliseconds: Int64 {
            guard !grace.isNaN else { return 10_000 }
            return Int64(min(max(grace, 0), 1e9) * 1000)
        }
    }

    private let plan: Plan
    /// What each task's events and end read, without copying its `PlannedTask` (`TaskFacts`).
    private let facts: [TaskFacts]
    private let runner: any TaskRunner
    private let gate: (any TaskGate)?
    /// Internal, for `run()`.
    let bus: EventBus
    private let options: Options
    private let lock = NSLock()
    private let queues: [any TaskQueue]
    private let loop: any EngineLoop
    private var scheduler: Scheduler
    private var operations: [TaskOperation?]
    private var counts = FinalCounts()
    /// Tasks whose final state is failed (tolerated or not), for `FLOWRUN_FAILED_NEEDS`.
    private var failedTasks = Set<Int>()
    private var cancelReason: String?
    /// Set by `cancel` before it waits for `lock`, which a gate's check (a long walk) may hold.
    private let cancelRequest = SetOnceFlag()
    /// Set with `runStatus`: `isOver` is asked by the signal thread, which must not wait for `lock`.
    private let ended = SetOnceFlag()
    /// Tasks let through while a cancel waited for `lock`: not started, ended as cancelled
    /// once the cancel is applied.
    private var heldForCancel: [Int] = []
    /// Tasks whose gate check is finished off the loop (a changed input hashed): each holds its
    /// slot, with no operation, until the gate decides (`checked(_:_:)`).
    private var checking = Set<Int>()
    /// Tasks of `checking` the gate decided to run while the queues were suspended: none starts
    /// then, so they stay in `checking` (a cancel or fail-fast ends them as it would there) and
    /// start at `resume()`, or at a cancel that lets them go on as cleanup.
    private var decidedWhileSuspended: [Int] = []
    private var runStatus: RunStatus?
    /// Called once, outside `lock`, after the step that gave the run its status.
    private var whenFinished: (@Sendable (RunStatus) -> Void)?
    private var startedAt: Int64 = 0
    private var flushQueued = false
    /// Fail-fast has stopped the run: tasks that run on start no new attempt.
    private var retriesStopped = false
    private let jitter: @Sendable () -> Double

    /// - Parameter loop: the run's loop; the runner's attempts must report on it.
    /// - Parameter gate: skips tasks that need not run (up to date); nil runs every task.
    /// - Parameter jitter: the back-off's jitter factor (`RetryDelay`); tests fix it.
    package init(
        plan: Plan, runner: any TaskRunner, loop: any EngineLoop, bus: EventBus, options: Options,
        gate: (any TaskGate)? = nil, jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.75...1.25) }
    ) {
        self.plan = plan
        self.runner = runner
        self.gate = gate
        self.loop = loop
        self.bus = bus
        self.options = options
        self.jitter = jitter
        facts = TaskFacts.of(plan)
        scheduler = Scheduler(plan: plan, globalLimit: options.concurrency, failFast: options.failFast)
        // Index 0 is the default queue, then the named ones in file order, as the scheduler counts them.
        queues =
            [loop.makeQueue(name: "default", limit: options.concurrency)]
            + plan.workflow.queues.map { loop.makeQueue(name: $0.name, limit: $0.concurrency) }
        operations = [TaskOperation?](repeating: nil, count: plan.tasks.count)
    }

    /// Starts the run and returns: the first tasks are handed to their queues, and
    /// `whenFinished` is called once every task has its final event (from the thread of the
    /// input that ended the run, usually the loop). The sinks may still be writing then:
    /// `bus.finish()` hands them the rest.
    package func start(whenFinished: @escaping @Sendable (RunStatus) -> Void = { _ in }) {
        lock.withLock {
            self.whenFinished = whenFinished
            startedAt = loop.now
            let workflow = plan.workflow
            bus.post(
                .workflowStarted(
                    workflow: workflow.name, file: workflow.file, tasks: plan.tasks.count,
                    concurrency: options.concurrency))
            perform(scheduler.begin())
        }
        flushSoon()
        announceEndIfDue()
    }

    /// The run's status once every task has its final event; nil before.
    package var status: RunStatus? {
        lock.withLock { runStatus }
    }

    /// Calls `whenFinished`, once, if the run has its status: after each input, outside `lock`.
    private func announceEndIfDue() {
        if let (status, whenFinished) = lock.withLock({ takeAnnouncement() }) { whenFinished(status) }
    }

    /// The call `announceEndIfDue` makes, taken once the run has its status. Called with `lock` held.
    private func takeAnnouncement() -> (RunStatus, @Sendable (RunStatus) -> Void)? {
        guard let runStatus, let whenFinished else { return nil }
        self.whenFinished = nil
        return (runStatus, whenFinished)
    }

    /// Cancels the run: running tasks get SIGTERM, then SIGKILL after the grace period; waiting
    /// tasks are skipped, but `when: always` ones run as cleanup (`CleanupRule`). Returns
    /// whether there is cleanup to run; none with `withCleanup: false` (a kill follows at once).
    /// `hangingUp` (SIGHUP): the tasks running or being started also get SIGHUP, as a terminal's
    /// foreground job would, cleanup already running included; cleanup the cancel starts does not.
    @discardableResult
    package func cancel(reason: String, withCleanup: Bool = true, hangingUp: Bool = false) -> Bool {
        // Before the lock: a check under way holds it until it is told to stop (Ctrl-C during
        // the walk of a large input tree).
        cancelRequest.set()
        gate?.stopChecks()
        let (running, hungUp, cleanup): ([TaskOperation], [TaskOperation], Bool) = lock.withLock {
            guard cancelReason == nil else { return ([], [], false) }
            cancelReason = reason
            // Before the cancel starts any cleanup.
            let hungUp = hangingUp ? operations.compactMap { $0 } : []
            let cleanup = withCleanup ? scheduler.unfinishedAlwaysTasks : []
            if !cleanup.isEmpty {
                bus.post(.workflowCleanup(reason: reason, tasks: cleanup.map { plan.tasks[$0].id }))
                for queue in queues { queue.isSuspended = false }
                for operation in operations { operation?.setSuspended(false) }
                _ = loop.schedule(at: loop.now + options.graceMilliseconds) { [self] in cleanupDeadlinePassed() }
            }
            perform(scheduler.cancel(reason: reason, withCleanup: withCleanup))
            for task in heldForCancel {
                counts.cancelled += 1
                bus.post(.taskCancelled(task: facts[task].id, reason: reason))
                perform(scheduler.taskFinished(task, .cancelled))
            }
            heldForCancel = []
            // A check the cancel cut short starts only a task that goes on as cleanup.
            endChecks(cancelledWith: reason) { !(withCleanup && CleanupRule.goesOn(facts[$0].when)) }
            // The cancel lifts the suspension: cleanup decided meanwhile starts.
            startDecided()
            let running = operations.indices.compactMap { task in
                withCleanup && CleanupRule.goesOn(facts[task].when) ? nil : operations[task]
            }
            return (running, hungUp, !cleanup.isEmpty)
        }
        for operation in running { operation.cancelRun(reason: reason) }
        // After the cancels are asked for: a task the hang-up ends counts as cancelled, not failed.
        for operation in hungUp { operation.hangUpRun() }
        bus.flushElsewhere()
        loop.nudge()
        announceEndIfDue()
        return cleanup
    }

    /// The grace period after a cancel is over: cleanup not started is skipped, and cleanup
    /// still running is stopped as a timed-out task is.
    private func cleanupDeadlinePassed() {
        let running: [TaskOperation] = lock.withLock {
            perform(scheduler.closeCleanup(reason: CleanupRule.lateReason(grace: options.grace)))
            endChecks(cancelledWith: CleanupRule.lateReason(grace: options.grace)) { _ in true }
            return operations.compactMap { $0 }
        }
        for operation in running { operation.cancelRun(reason: CleanupRule.overrunReason(grace: options.grace)) }
        flushSoon()
        announceEndIfDue()
    }

    /// Runs `block` on the engine's loop after whatever was posted to it before, such as each
    /// running attempt's cancel: a signal sent there reaches tasks already counted as cancelled.
    package func afterPosted(_ block: @escaping @Sendable () -> Void) {
        loop.post(block)
    }

    /// Kills running tasks at once, cleanup included, and starts no more (a second Ctrl-C).
    package func kill(reason: String = "killed") {
        gate?.stopChecks()
        let running: [TaskOperation] = lock.withLock {
            perform(scheduler.closeCleanup(reason: reason))
            endChecks(cancelledWith: reason) { _ in true }
            return operations.compactMap { $0 }
        }
        for operation in running {
            // Cleanup was not cancelled: so that it ends as cancelled, not as failed by SIGKILL.
            operation.cancelRun(reason: reason)
            operation.killRun()
        }
        bus.flushElsewhere()
        announceEndIfDue()
    }

    /// Whether every task has its final event: what is left of `run()` is writing.
    package var isOver: Bool {
        ended.isSet
    }

    /// Whether `suspend()` holds the queues: what the `p` key of the live view toggles.
    package var isSuspended: Bool {
        lock.withLock { scheduler.isSuspended }
    }

    /// Running tasks go on; none starts until `resume()`.
    package func suspend() {
        lock.withLock {
            guard scheduler.suspend() else { return }
            for queue in queues { queue.isSuspended = true }
            for operation in operations { operation?.setSuspended(true) }
            bus.post(.queueSuspended)
        }
        bus.flushElsewhere()
    }

    package func resume() {
        lock.withLock {
            guard scheduler.isSuspended else { return }
            for queue in queues { queue.isSuspended = false }
            for operation in operations { operation?.setSuspended(false) }
            bus.post(.queueResumed)
            // They hold their slots already: first, as they would have started before.
            startDecided()
            perform(scheduler.resume())
        }
        bus.flushElsewhere()
        loop.nudge()
        announceEndIfDue()
    }

    /// Writes the events of a step once the starts it queued have run: on the loop behind
    /// them, so that the next task is running while its predecessor's events are written, and
    /// the events of several quick steps go out in one write.
    private func flushSoon() {
        if lock.withLock({ claimFlush() }) { postFlush() }
    }

    /// Whether this step is the one to queue the flush: none is queued yet. Called with `lock` held.
    private func claimFlush() -> Bool {
        defer { flushQueued = true }
        return !flushQueued
    }

    private func postFlush() {
        loop.post { [self] in
            lock.withLock { flushQueued = false }
            bus.flush()
        }
    }

    // MARK: Performing the scheduler's actions (under `lock`)

    private func perform(_ actions: [Scheduler.Action]) {
        var started = false
        defer { if started { loop.nudge() } }
        // A worklist: a task the gate skips frees its slot at once, which can start the next.
        var actions = actions
        var next = 0
        while next < actions.count {
            let action = actions[next]
            next += 1
            switch action {
            case .ready(let task):
                bus.post(.taskReady(task: facts[task].id))
            case .start(let task):
                if holdsForCancel(task) { continue }
                let answer =
                    gate?.check(task) { [self] reason in
                        loop.post { [self] in stepping { checked(task, reason) } }
                    } ?? .now(nil)
                guard case .now(let reason) = answer else {
                    checking.insert(task)
                    continue
                }
                let (more, didStart) = begin(task, skipReason: reason)
                actions += more
                started = started || didStart
            case .skip(let task, let reason):
                counts.skipped += 1
                bus.post(.taskSkipped(task: facts[task].id, reason: reason))
            case .finish(let status):
                runStatus = status
                ended.set()
                bus.post(
                    .workflowFinished(
                        workflow: plan.workflow.name, status: status, durationMilliseconds: loop.now - startedAt,
                        counts: counts))
            }
        }
    }

    /// Skips or starts a task its gate has checked: the actions its skip makes, and whether it
    /// started. Called with `lock` held.
    private func begin(_ task: Int, skipReason reason: String?) -> (actions: [Scheduler.Action], started: Bool) {
        if let reason {
            counts.skipped += 1
            if reason == SkipReason.upToDate { counts.upToDate += 1 }
            let run = reason == SkipReason.doneBefore ? gate?.resumedRun : nil
            if run != nil { counts.doneBefore += 1 }
            bus.post(.taskSkipped(task: facts[task].id, reason: reason, run: run))
            return (scheduler.taskFinished(task, .succeeded), false)
        }
        // The check may have been cut short by a cancel that now waits for `lock`.
        if holdsForCancel(task) { return ([], false) }
        if facts[task].isGroup {
            // A group has nothing to run: it succeeds as it starts, one event, and its
            // slot is free again at once. The gate still saw it, for its fingerprint.
            counts.succeeded += 1
            gate?.taskSucceeded(task)
            bus.post(.taskSucceeded(task: facts[task].id, attempts: 1, durationMilliseconds: 0))
            return (scheduler.taskFinished(task, .succeeded), false)
        }
        start(task)
        return ([], true)
    }

    /// The gate has decided on a task it checked off the loop: skipped or started, unless a
    /// cancel, a kill or fail-fast ended it meanwhile. Under `lock`.
    private func checked(_ task: Int, _ reason: String?) {
        guard checking.contains(task) else { return }
        if reason == nil, scheduler.isSuspended {
            decidedWhileSuspended.append(task)
            return
        }
        checking.remove(task)
        let (actions, started) = begin(task, skipReason: reason)
        perform(actions)
        if started { loop.nudge() }
    }

    /// Starts the tasks decided while the queues were suspended (`decidedWhileSuspended`) that
    /// are still held: a cancel, a kill or fail-fast may have ended some. Under `lock`.
    private func startDecided() {
        let decided = decidedWhileSuspended
        decidedWhileSuspended = []
        for task in decided where checking.remove(task) != nil {
            let (actions, started) = begin(task, skipReason: nil)
            perform(actions)
            if started { loop.nudge() }
        }
    }

    /// Ends as cancelled the tasks being checked that `ends` picks (in task order): they were
    /// not started, as `heldForCancel`'s. Called with `lock` held.
    private func endChecks(cancelledWith reason: String, where ends: (Int) -> Bool) {
        for task in checking.sorted() where ends(task) {
            checking.remove(task)
            counts.cancelled += 1
            bus.post(.taskCancelled(task: facts[task].id, reason: reason))
            perform(scheduler.taskFinished(task, .cancelled))
        }
    }

    /// Whether `task` is held rather than started: a cancel waits for `lock`, and the task would
    /// not go on as its cleanup. Called with `lock` held.
    private func holdsForCancel(_ task: Int) -> Bool {
        guard cancelReason == nil, cancelRequest.isSet, !CleanupRule.goesOn(facts[task].when) else { return false }
        heldForCancel.append(task)
        return true
    }

    private func start(_ task: Int) {
        // Emitted here, in the scheduler's order, so priority order shows in the stream.
        bus.post(.taskStarted(task: facts[task].id, attempt: 1, kind: facts[task].kind))
        // The operation reads the task in the plan's own array; only a `when: failure` task,
        // whose env this run adds to, gets a copy of its own.
        var tasks = plan.tasks
        var index = task
        if facts[task].when == .failure {
            // Which of its needs failed, for a `when: failure` task to report or undo them.
            var planned = plan.tasks[task]
            let failed = planned.needs.filter(failedTasks.contains).map { facts[$0].id }
            planned.environment.append(EnvironmentEntry(name: Self.failedNeedsVariable, value: failed.joined(separator: " ")))
            (tasks, index) = ([planned], 0)
        }
        let operation = TaskOperation(
            tasks: tasks, index: index, runner: runner, loop: loop, bus: bus,
            graceMilliseconds: options.graceMilliseconds, jitter: jitter
        ) { [self] report in
            stepping { reported(report, by: task) }
        }
        operations[task] = operation
        queues[scheduler.queue(of: task)].addOperation(operation)
    }

    private func reported(_ report: TaskOperation.Report, by task: Int) {
        switch report {
        case .started(let attempt):
            bus.post(.taskStarted(task: facts[task].id, attempt: attempt, kind: facts[task].kind))
        case .retrying(let attempt, let delay, let reason, let exitCode):
            bus.post(.taskRetrying(task: facts[task].id, attempt: attempt, delayMilliseconds: delay, reason: reason, exitCode: exitCode))
        case .ended(let end):
            taskEnded(task, end)
        }
    }

    /// Once fail-fast has stopped the run, no new attempt starts: the running tasks finish, as
    /// the spec says, but a failed attempt is their last. `when: failure` and `when: always`
    /// tasks keep their retries: they are the run's answer to the failure.
    private func stopRetries() {
        guard !retriesStopped else { return }
        retriesStopped = true
        for (task, operation) in operations.enumerated() where facts[task].when == .success {
            // Posted to the loop: it ends no operation here, under `lock`.
            operation?.stopRetrying(reason: Self.failFastReason)
        }
    }

    static let failFastReason = "an earlier task failed (fail_fast)"
    /// The ids of a `when: failure` task's needs that failed, space-separated.
    package static let failedNeedsVariable = "FLOWRUN_FAILED_NEEDS"

    private func taskEnded(_ task: Int, _ end: TaskEnd) {
        operations[task] = nil
        let id = facts[task].id
        let outcome: Scheduler.Outcome
        switch end {
        case .succeeded(let attempts, let duration):
            // Its files hashed off the loop: the other tasks go on meanwhile, and this one ends
            // once they are.
            let hashedLater =
                gate?.taskSucceeded(task) { [self] in
                    loop.post { [self] in stepping { succeeded(task, attempts: attempts, duration: duration) } }
                } ?? false
            if !hashedLater { succeeded(task, attempts: attempts, duration: duration) }
            return
        case .failed(let attempts, let duration, let reason, let exitCode):
            let allowed = facts[task].continueOnError
            counts.failed += 1
            if allowed { counts.allowed += 1 }
            outcome = .failed
            failedTasks.insert(task)
            if !allowed, options.failFast { stopRetries() }
            bus.post(
                .taskFailed(
                    task: id, attempts: attempts, durationMilliseconds: duration, reason: reason, exitCode: exitCode, allowed: allowed))
            if !allowed, options.failFast {
                perform(scheduler.taskFinished(task, .failed))
                // Not started yet: fail-fast skips them, as the tasks still waiting.
                for checked in checking.sorted() where facts[checked].when == .success {
                    checking.remove(checked)
                    counts.skipped += 1
                    bus.post(.taskSkipped(task: facts[checked].id, reason: Self.failFastReason))
                    perform(scheduler.taskFinished(checked, .cancelled))
                }
                return
            }
        case .cancelled(let reason):
            counts.cancelled += 1
            outcome = .cancelled
            bus.post(.taskCancelled(task: id, reason: reason))
        }
        perform(scheduler.taskFinished(task, outcome))
    }

    /// Ends a task's success, at once or once the gate has hashed its files off the loop
    /// (`TaskGate`). Under `lock`.
    private func succeeded(_ task: Int, attempts: Int, duration: Int64) {
        counts.succeeded += 1
        bus.post(.taskSucceeded(task: facts[task].id, attempts: attempts, durationMilliseconds: duration))
        perform(scheduler.taskFinished(task, .succeeded))
    }

    /// One hold of the lock for a step, the flush it makes due and the end (as `flushSoon` and
    /// `announceEndIfDue` do): this runs once or more for every task.
    private func stepping(_ step: () -> Void) {
        let (flush, announcement) = lock.withLock {
            step()
            return (claimFlush(), takeAnnouncement())
        }
        if flush { postFlush() }
        if let (status, whenFinished) = announcement { whenFinished(status) }
    }
}
