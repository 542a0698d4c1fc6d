import Dispatch
import FlowModel
import FlowPlanning
import Foundation

/// One task as an asynchronous `Operation`: the thin shell around its `AttemptMachine`, which
/// it drives on the engine's loop and whose actions it performs (attempts, timers, signals).
/// Lifecycle events go to the engine, which writes them all.
///
/// `isExecuting` and `isFinished` are announced with `willChangeValue`/`didChangeValue`, which is
/// what swift-corelibs-foundation's `OperationQueue` listens to.
///
/// - Warning: `executing`, `finished`, `killable`, `killRequested`, `starting`,
///   `hangUpRequested` and `pendingCancel` are guarded by `lock`, since they are used from other
///   threads; `machine`, `running` and `timers` are only touched on the loop. That is
///   why it is `@unchecked Sendable`.
final class TaskOperation: Operation, @unchecked Sendable {
    /// What the operation tells the engine.
    enum Report: Equatable, Sendable {
        case started(attempt: Int)
        case retrying(attempt: Int, delayMilliseconds: Int64, reason: String, exitCode: Int? = nil)
        case ended(TaskEnd)
    }

    /// The task is `tasks[index]`, read in place: the plan's own array, shared, rather than a
    /// copy of the `PlannedTask` per operation (its strings and arrays retained, then released,
    /// at every task of a run).
    private let tasks: [PlannedTask]
    private let index: Int
    private let runner: any TaskRunner
    private let loop: any EngineLoop
    private let bus: EventBus
    private let report: @Sendable (Report) -> Void
    private let lock = NSLock()
    private var executing = false
    private var finished = false
    private var machine: AttemptMachine
    private var running: (attempt: Int, handle: any RunningAttempt)? {
        didSet {
            let handle = running?.handle
            let (hangUpNow, killNow): (Bool, Bool) = lock.withLock {
                killable = handle
                defer {
                    starting = nil
                    hangUpRequested = false
                }
                return (hangUpRequested, killRequested)
            }
            if hangUpNow { handle?.hangUp() }
            if killNow { handle?.kill() }
        }
    }
    /// The running attempt, for a second Ctrl-C and a hang-up.
    private var killable: (any RunningAttempt)?
    /// A kill came (`killRun`): an attempt whose start was under way then is killed as it is known.
    private var killRequested = false
    /// The attempt being started on the loop: its child may already run, its handle is not known.
    private var starting: Int?
    /// A hang-up came (`hangUpRun`) while `starting`: that attempt is hung up as it is known
    /// (only that one: an attempt started after the hang-up is not).
    private var hangUpRequested = false
    /// A cancel asked for from another thread that the machine has not had yet (under `lock`).
    private var pendingCancel: String?
    private var timers: [AttemptMachine.Timer: LoopTimer] = [:]

    /// The operation of `tasks[index]` (a plan's tasks, not copied).
    init(
        tasks: [PlannedTask], index: Int, runner: any TaskRunner, loop: any EngineLoop, bus: EventBus, graceMilliseconds: Int64,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.75...1.25) },
        report: @escaping @Sendable (Report) -> Void
    ) {
        self.tasks = tasks
        self.index = index
        self.runner = runner
        self.loop = loop
        self.bus = bus
        self.report = report
        // Field by field, in place: `let spec = tasks[index].spec` would copy the whole spec.
        let (policy, priority) = tasks.withUnsafeBufferPointer { tasks in
            return (
                AttemptMachine.Policy(
                    retries: tasks[index].spec.retries, retryDelay: tasks[index].spec.retryDelay, timeout: tasks[index].spec.timeout,
                    graceMilliseconds: graceMilliseconds), tasks[index].spec.priority
            )
        }
        machine = AttemptMachine(policy: policy, jitter: jitter)
        super.init()
        queuePriority = Self.queuePriority(priority)
    }

    /// The operation of `task` alone.
    convenience init(
        task: PlannedTask, runner: any TaskRunner, loop: any EngineLoop, bus: EventBus, graceMilliseconds: Int64,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.75...1.25) },
        report: @escaping @Sendable (Report) -> Void
    ) {
        self.init(tasks: [task], index: 0, runner: runner, loop: loop, bus: bus, graceMilliseconds: graceMilliseconds, jitter: jitter, report: report)
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }

    /// On the loop: the queues start operations on its queue.
    override func start() {
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        handle(.start)
    }

    /// Stops the task for a cancelled run (from any thread): the running attempt gets SIGTERM,
    /// then SIGKILL after the grace period; a task waiting to retry ends at once.
    func cancelRun(reason: String) {
        cancel()
        lock.withLock { pendingCancel = pendingCancel ?? reason }
        loop.post { [self] in takePendingCancel() }
    }

    /// On the loop: hands the machine the cancel asked for, once. Also before an attempt's end,
    /// which a kill sent right after the cancel (a second Ctrl-C) can bring to the loop first:
    /// the task then ends cancelled, not failed by the SIGKILL.
    private func takePendingCancel() {
        let reason: String? = lock.withLock {
            defer { pendingCancel = nil }
            return pendingCancel
        }
        if let reason { handle(.cancel(reason: reason)) }
    }

    /// Starts no attempt after the running one (fail-fast stopped the run), from any thread: a
    /// task waiting to retry ends failed at once.
    func stopRetrying(reason: String) {
        loop.post { [self] in handle(.stopRetrying(reason: reason)) }
    }

    /// Holds back (or lets go) the next attempt of a task waiting to retry, from any thread: a
    /// suspension starts no task, and no retry either.
    func setSuspended(_ suspended: Bool) {
        loop.post { [self] in handle(suspended ? .suspend : .resume) }
    }

    /// Kills the running attempt at once (a second Ctrl-C), from any thread: without waiting
    /// for the loop, which may be held up writing to a stdout nobody reads. An attempt being
    /// started on the loop meanwhile (its child already runs, its handle is not known yet) is
    /// killed as soon as it is: missed, it got only the cancel's SIGTERM, and a task that
    /// ignores that held the run until flowrun's exit deadline, which drops the final events.
    func killRun() {
        lock.withLock {
            killRequested = true
            return killable
        }?.kill()
    }

    /// Hangs up the running attempt (SIGHUP to its process group), from any thread, as a
    /// terminal's hang-up reaches every process of its foreground job; an attempt being started
    /// meanwhile is hung up as soon as its handle is known, as its child already runs. An
    /// attempt started later (a cleanup task's retry) is not.
    func hangUpRun() {
        lock.withLock {
            if starting != nil { hangUpRequested = true }
            return killable
        }?.hangUp()
    }

    // MARK: Performing the machine's actions (on the loop)

    private func handle(_ input: AttemptMachine.Input) {
        perform(machine.handle(input, now: loop.now))
    }

    private func perform(_ actions: [AttemptMachine.Action]) {
        for action in actions {
            switch action {
            case .startAttempt(let attempt):
                startAttempt(attempt)
            case .arm(let timer, let deadline):
                timers[timer] = loop.schedule(at: deadline) { [self] in
                    timers[timer] = nil
                    handle(.timerFired(timer))
                }
            case .disarm(let timer):
                if let armed = timers.removeValue(forKey: timer) { loop.cancel(armed) }
            case .terminate(let attempt):
                if let running, running.attempt == attempt {
                    if machine.isTimingOut { running.handle.timeOut() } else { running.handle.terminate() }
                }
            case .forceKill(let attempt):
                if let running, running.attempt == attempt { running.handle.kill() }
            case .started(let attempt):
                report(.started(attempt: attempt))
            case .retrying(let attempt, let delay, let reason, let exitCode):
                report(.retrying(attempt: attempt, delayMilliseconds: delay, reason: reason, exitCode: exitCode))
            case .end(let taskEnd):
                end(taskEnd)
            }
        }
    }

    private func startAttempt(_ attempt: Int) {
        let index = index
        let id = tasks.withUnsafeBufferPointer { $0[index].spec.id }
        let bus = bus
        let events = AttemptEvents(
            output: { stream, lines in bus.emit(contentsOf: lines.lazy.map { .taskOutput(task: id, stream: stream, line: $0) }) },
            progress: { done, total, unit in bus.emit(.taskProgress(task: id, done: done, total: total, unit: unit)) },
            hasRoomForOutput: { bus.hasRoom(whenDrained: $0) }
        )
        let completion: @Sendable (AttemptResult) -> Void = { [self] result in
            if running?.attempt == attempt { running = nil }
            takePendingCancel()
            self.handle(.attemptEnded(attempt: attempt, result))
        }
        lock.withLock { starting = attempt }
        let handle = tasks.withUnsafeBufferPointer { runner.startAttempt(of: $0[index], attempt: attempt, events: events, completion: completion) }
        // Unless it ended inside `startAttempt`: then nothing is left of it to hang up.
        if machine.runningAttempt == attempt {
            running = (attempt, handle)
        } else {
            lock.withLock {
                if starting == attempt {
                    starting = nil
                    hangUpRequested = false
                }
            }
        }
    }

    /// Finishes the operation, then reports the end (the machine ends a task once).
    ///
    /// In that order, as Foundation runs a `completionBlock` after `isFinished`: the queue's slot
    /// is free by the time the engine adds the operation of the next task, so `addOperation`
    /// dispatches it at once instead of leaving it for the queue's finish handling.
    private func end(_ taskEnd: TaskEnd) {
        // Mostly nil already (the attempt's end cleared it): no lock taken to say so again.
        if running != nil { running = nil }
        let wasExecuting = lock.withLock { executing }
        willChangeValue(forKey: "isFinished")
        if wasExecuting { willChangeValue(forKey: "isExecuting") }
        lock.withLock {
            executing = false
            finished = true
        }
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
        didChangeValue(forKey: "isFinished")
        report(.ended(taskEnd))
    }

    static func queuePriority(_ priority: Priority) -> Operation.QueuePriority {
        switch priority {
        case .veryLow: .veryLow
        case .low: .low
        case .normal: .normal
        case .high: .high
        case .veryHigh: .veryHigh
        }
    }
}
