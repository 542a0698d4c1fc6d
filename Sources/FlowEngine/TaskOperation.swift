import Dispatch
import FlowModel
import FlowPlanning
import Foundation

/// How a task ended, as the engine reports it.
enum TaskEnd: Sendable {
    case succeeded(attempts: Int, durationMilliseconds: Int64)
    case failed(attempts: Int, durationMilliseconds: Int64, reason: String, exitCode: Int?)
    case cancelled(reason: String)
}

/// One task as an asynchronous `Operation`: its attempts, retries with back-off, and timeouts.
///
/// `isExecuting` and `isFinished` are announced with `willChangeValue`/`didChangeValue`, which is
/// what swift-corelibs-foundation's `OperationQueue` listens to.
///
/// - Warning: every mutable property is guarded by `lock`; that is why it is `@unchecked Sendable`.
final class TaskOperation: Operation, @unchecked Sendable {
    private enum Phase {
        case waiting
        case running(attempt: Int, handle: (any RunningAttempt)?, timedOut: Bool)
        case backingOff(attempt: Int, work: DispatchWorkItem)
        case ended
    }

    let task: PlannedTask
    private let runner: any TaskRunner
    private let bus: EventBus
    private let onEnd: @Sendable (TaskEnd) -> Void
    private let lock = NSLock()
    private var phase = Phase.waiting
    private var executing = false
    private var finished = false
    private var cancelReason: String?
    private var grace = 10.0
    private var startedAt: Int64 = 0

    init(task: PlannedTask, runner: any TaskRunner, bus: EventBus, onEnd: @escaping @Sendable (TaskEnd) -> Void) {
        self.task = task
        self.runner = runner
        self.bus = bus
        self.onEnd = onEnd
        super.init()
        queuePriority = Self.queuePriority(task.spec.priority)
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }

    override func start() {
        if let reason = lock.withLock({ cancelReason }) {
            end(.cancelled(reason: reason))
            return
        }
        willChangeValue(forKey: "isExecuting")
        lock.withLock {
            executing = true
            startedAt = EventBus.monotonicMilliseconds()
        }
        didChangeValue(forKey: "isExecuting")
        runAttempt(1)
    }

    /// Stops the task for a cancelled run: the running attempt gets SIGTERM, then SIGKILL after
    /// `grace` seconds; a task waiting to retry ends at once.
    func cancelRun(reason: String, grace: Double) {
        let action: () -> Void = lock.withLock {
            cancelReason = reason
            self.grace = grace
            switch phase {
            case .running(_, let handle, _):
                return { handle?.terminate(grace: grace) }
            case .backingOff(_, let work):
                work.cancel()
                return { [self] in end(.cancelled(reason: reason)) }
            case .waiting, .ended:
                return {}
            }
        }
        cancel()
        action()
    }

    /// Kills the running attempt at once (a second Ctrl-C).
    func killRun() {
        let handle: (any RunningAttempt)? = lock.withLock {
            if case .running(_, let handle, _) = phase { return handle }
            return nil
        }
        handle?.kill()
    }

    // MARK: Attempts

    private func runAttempt(_ attempt: Int) {
        lock.withLock { phase = .running(attempt: attempt, handle: nil, timedOut: false) }
        if attempt > 1 {
            // On the timer queue, which must not wait on a sink: its timeouts and kills would wait too.
            bus.post(.taskStarted(task: task.id, attempt: attempt, kind: task.spec.action.kind))
            bus.flushElsewhere()
        }
        let id = task.id
        let bus = bus
        let events = AttemptEvents(
            output: { stream, lines in bus.emit(contentsOf: lines.lazy.map { .taskOutput(task: id, stream: stream, line: $0) }) },
            progress: { done, total, unit in bus.emit(.taskProgress(task: id, done: done, total: total, unit: unit)) },
            hasRoomForOutput: { bus.hasRoom(whenDrained: $0) }
        )
        let handle = runner.startAttempt(of: task, attempt: attempt, events: events) { [self] result in
            attemptEnded(attempt, result)
        }
        let stopNow: Double? = lock.withLock {
            guard case .running(attempt, nil, let timedOut) = phase else { return nil }
            phase = .running(attempt: attempt, handle: handle, timedOut: timedOut)
            return cancelReason == nil ? nil : grace
        }
        if let stopNow { handle.terminate(grace: stopNow) }
        if let timeout = task.spec.timeout {
            TimerQueue.shared.asyncAfter(deadline: .now() + .milliseconds(Int(timeout.milliseconds))) { [weak self] in
                self?.timeoutFired(attempt)
            }
        }
    }

    private func timeoutFired(_ attempt: Int) {
        let handle: (any RunningAttempt)? = lock.withLock {
            guard case .running(attempt, let handle, _) = phase else { return nil }
            phase = .running(attempt: attempt, handle: handle, timedOut: true)
            return handle
        }
        handle?.terminate(grace: lock.withLock { grace })
    }

    private func attemptEnded(_ attempt: Int, _ result: AttemptResult) {
        let (timedOut, cancelReason, startedAt): (Bool, String?, Int64) = lock.withLock {
            var timedOut = false
            if case .running(_, _, let flag) = phase { timedOut = flag }
            return (timedOut, self.cancelReason, self.startedAt)
        }
        if let cancelReason {
            end(.cancelled(reason: cancelReason))
            return
        }
        let duration = EventBus.monotonicMilliseconds() - startedAt
        var outcome = result
        if timedOut, let timeout = task.spec.timeout {
            outcome = .failed(reason: "timed out after \(timeout)", exitCode: nil)
        }
        guard case .failed(let reason, let exitCode) = outcome else {
            end(.succeeded(attempts: attempt, durationMilliseconds: duration))
            return
        }
        guard attempt <= task.spec.retries else {
            end(.failed(attempts: attempt, durationMilliseconds: duration, reason: reason, exitCode: exitCode))
            return
        }
        let delay = RetryDelay.milliseconds(first: task.spec.retryDelay, afterAttempt: attempt)
        let work = DispatchWorkItem { [self] in
            let stillWaiting = lock.withLock { if case .backingOff(attempt, _) = phase { true } else { false } }
            if stillWaiting { runAttempt(attempt + 1) }
        }
        lock.withLock { phase = .backingOff(attempt: attempt, work: work) }
        bus.emit(.taskRetrying(task: task.id, attempt: attempt, delayMilliseconds: delay, reason: reason))
        TimerQueue.shared.asyncAfter(deadline: .now() + .milliseconds(Int(delay)), execute: work)
    }

    /// Finishes the operation, then reports the end, once.
    ///
    /// In that order, as Foundation runs a `completionBlock` after `isFinished`: the queue's slot
    /// is free by the time the engine adds the operation of the next task, so `addOperation`
    /// dispatches it at once instead of leaving it for the queue's finish handling.
    private func end(_ taskEnd: TaskEnd) {
        let first: Bool = lock.withLock {
            if case .ended = phase { return false }
            phase = .ended
            return true
        }
        guard first else { return }
        let wasExecuting = lock.withLock { executing }
        willChangeValue(forKey: "isFinished")
        if wasExecuting { willChangeValue(forKey: "isExecuting") }
        lock.withLock {
            executing = false
            finished = true
        }
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
        didChangeValue(forKey: "isFinished")
        onEnd(taskEnd)
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
