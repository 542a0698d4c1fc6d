import FlowModel

/// How a task ended, as the engine reports it.
package enum TaskEnd: Sendable, Equatable {
    case succeeded(attempts: Int, durationMilliseconds: Int64)
    case failed(attempts: Int, durationMilliseconds: Int64, reason: String, exitCode: Int?)
    case cancelled(reason: String)
}

/// The attempts of one task as a pure state machine: attempts, retries with back-off, the
/// timeout, the grace period and cancel. It never touches a thread, a process or a clock; the
/// task's operation feeds it what happened, with the loop's `now`, and performs the actions it
/// returns (the shape of `Scheduler`).
///
/// One grace period serves both ways an attempt is stopped, a timeout and a cancel: SIGTERM
/// (with SIGCONT, so that a stopped process can act on it), then SIGKILL once it is over.
package struct AttemptMachine: Sendable {
    /// What the machine is told.
    package enum Input: Equatable, Sendable {
        case start
        case attemptEnded(attempt: Int, AttemptResult)
        case timerFired(Timer)
        case cancel(reason: String)
        /// The run has stopped (fail-fast): no attempt after this one, whatever the retries.
        case stopRetrying(reason: String)
        /// The queues are suspended: a back-off that ends meanwhile waits for `resume`, as no
        /// task starts while suspended, a retry's attempt included.
        case suspend
        case resume
    }

    /// A timer the machine asks for; it is told when one fires, and ignores one that is stale.
    package enum Timer: Hashable, Sendable {
        case timeout(attempt: Int)
        case backoff(attempt: Int)
        case grace(attempt: Int)
    }

    package enum Action: Equatable, Sendable {
        case startAttempt(Int)
        case arm(Timer, at: Int64)
        case disarm(Timer)
        /// SIGTERM then SIGCONT to the attempt: asks it to stop.
        case terminate(attempt: Int)
        /// SIGKILL to the attempt.
        case forceKill(attempt: Int)
        /// A lifecycle event: an attempt after the first has started (the first is the engine's).
        case started(attempt: Int)
        /// A lifecycle event: `attempt` failed and the next starts after `delayMilliseconds`.
        case retrying(attempt: Int, delayMilliseconds: Int64, reason: String, exitCode: Int? = nil)
        /// The task's final state; nothing follows it.
        case end(TaskEnd)
    }

    /// What the machine needs to know of the task and the run.
    package struct Policy: Sendable {
        /// Extra attempts after a failed one.
        package var retries: Int
        package var retryDelay: TimeSpan
        package var timeout: TimeSpan?
        /// Between SIGTERM and SIGKILL, on a timeout and on cancel.
        package var graceMilliseconds: Int64

        package init(retries: Int, retryDelay: TimeSpan, timeout: TimeSpan?, graceMilliseconds: Int64) {
            self.retries = retries
            self.retryDelay = retryDelay
            self.timeout = timeout
            self.graceMilliseconds = graceMilliseconds
        }
    }

    /// Why a running attempt is being stopped.
    private enum Stop: Equatable {
        case timedOut
        case cancelled(String)
    }

    private enum Phase: Equatable {
        case idle
        case running(attempt: Int, stop: Stop?)
        case backingOff(attempt: Int)
        case ended
    }

    private let policy: Policy
    /// The longest wait a server's Retry-After gets: an hour, so that a hostile or confused
    /// server cannot hold a run for days (Ctrl-C ends the wait at any time).
    static let longestRetryAfter: Int64 = 3_600_000
    /// The back-off's jitter factor; injected so that tests know the delays.
    private let jitter: @Sendable () -> Double
    private var phase = Phase.idle
    private var cancelReason: String?
    /// Why no further attempt starts, once `stopRetrying` came.
    private var retryStop: String?
    /// The failure of the attempt a back-off waits to retry: the task's end if none follows.
    private var lastFailure: TaskEnd?
    private var startedAt: Int64 = 0
    private var suspended = false
    /// A back-off ended while suspended: its attempt starts at the resume.
    private var retryHeld = false

    package init(policy: Policy, jitter: @escaping @Sendable () -> Double = { Double.random(in: 0.75...1.25) }) {
        self.policy = policy
        self.jitter = jitter
    }

    /// The attempt that is running, if one is.
    package var runningAttempt: Int? {
        if case .running(let attempt, _) = phase { return attempt }
        return nil
    }

    package var hasEnded: Bool { phase == .ended }

    /// Whether the running attempt is being stopped because its timeout is over.
    package var isTimingOut: Bool {
        if case .running(_, .timedOut) = phase { return true }
        return false
    }

    package mutating func handle(_ input: Input, now: Int64) -> [Action] {
        switch input {
        case .start: start(now: now)
        case .attemptEnded(let attempt, let result): attemptEnded(attempt, result, now: now)
        case .timerFired(let timer): timerFired(timer, now: now)
        case .cancel(let reason): cancel(reason, now: now)
        case .stopRetrying(let reason): stopRetrying(reason)
        case .suspend: suspend()
        case .resume: resume(now: now)
        }
    }

    private mutating func suspend() -> [Action] {
        suspended = true
        return []
    }

    private mutating func resume(now: Int64) -> [Action] {
        suspended = false
        guard retryHeld, case .backingOff(let attempt) = phase else { return [] }
        retryHeld = false
        return startAttempt(attempt + 1, now: now)
    }

    private mutating func start(now: Int64) -> [Action] {
        guard phase == .idle else { return [] }
        if let cancelReason {
            phase = .ended
            return [.end(.cancelled(reason: cancelReason))]
        }
        startedAt = now
        return startAttempt(1, now: now)
    }

    private mutating func startAttempt(_ attempt: Int, now: Int64) -> [Action] {
        phase = .running(attempt: attempt, stop: nil)
        var actions: [Action] = attempt > 1 ? [.started(attempt: attempt)] : []
        // Armed before the start: an attempt can end inside it, and then finds its timer to disarm.
        if let timeout = policy.timeout {
            actions.append(.arm(.timeout(attempt: attempt), at: now + timeout.milliseconds))
        }
        actions.append(.startAttempt(attempt))
        return actions
    }

    private mutating func attemptEnded(_ attempt: Int, _ result: AttemptResult, now: Int64) -> [Action] {
        guard case .running(attempt, let stop) = phase else { return [] }
        var actions: [Action] = []
        if policy.timeout != nil { actions.append(.disarm(.timeout(attempt: attempt))) }
        if stop != nil { actions.append(.disarm(.grace(attempt: attempt))) }
        if case .cancelled(let reason) = stop {
            return end(.cancelled(reason: reason), after: actions)
        }
        var outcome = result
        var retryable = true, notBefore: Int64 = 0, retryAfter: Int64 = 0
        if case .failedAdvising(let reason, let canRetry, let after) = outcome {
            outcome = .failed(reason: reason, exitCode: nil)
            retryable = canRetry
            retryAfter = after ?? 0
            notBefore = min(retryAfter, Self.longestRetryAfter)
        }
        if stop == .timedOut, let timeout = policy.timeout {
            outcome = .failed(reason: "timed out after \(timeout)", exitCode: nil)
            retryable = true
        }
        let duration = now - startedAt
        guard case .failed(let reason, let exitCode) = outcome else {
            return end(.succeeded(attempts: attempt, durationMilliseconds: duration), after: actions)
        }
        guard attempt <= policy.retries, retryable else {
            return end(.failed(attempts: attempt, durationMilliseconds: duration, reason: reason, exitCode: exitCode), after: actions)
        }
        if let retryStop {
            let reason = Self.notRetried(reason, because: retryStop)
            return end(.failed(attempts: attempt, durationMilliseconds: duration, reason: reason, exitCode: exitCode), after: actions)
        }
        if let timeout = policy.timeout, retryAfter > timeout.milliseconds {
            // As curl --retry-max-time: a wait longer than the task allows an attempt ends the
            // retries now, rather than holding the run for hours to make one more attempt.
            let stop = "the server's Retry-After (\(TimeSpan(milliseconds: retryAfter))) is longer than the task's timeout (\(timeout))"
            return end(
                .failed(attempts: attempt, durationMilliseconds: duration, reason: Self.notRetried(reason, because: stop), exitCode: exitCode),
                after: actions)
        }
        lastFailure = .failed(attempts: attempt, durationMilliseconds: duration, reason: reason, exitCode: exitCode)
        let delay = max(RetryDelay.milliseconds(first: policy.retryDelay, afterAttempt: attempt, jitter: jitter()), notBefore)
        phase = .backingOff(attempt: attempt)
        actions.append(.retrying(attempt: attempt, delayMilliseconds: delay, reason: reason, exitCode: exitCode))
        actions.append(.arm(.backoff(attempt: attempt), at: now + delay))
        return actions
    }

    private mutating func timerFired(_ timer: Timer, now: Int64) -> [Action] {
        switch (timer, phase) {
        case (.timeout(let attempt), .running(let running, nil)) where running == attempt:
            return stop(attempt, .timedOut, now: now)
        case (.grace(let attempt), .running(let running, .some)) where running == attempt:
            return [.forceKill(attempt: attempt)]
        case (.backoff(let attempt), .backingOff(let waiting)) where waiting == attempt:
            if suspended {
                retryHeld = true
                return []
            }
            return startAttempt(attempt + 1, now: now)
        default:
            return []
        }
    }

    private mutating func cancel(_ reason: String, now: Int64) -> [Action] {
        switch phase {
        case .idle:
            cancelReason = reason
            return []
        case .running(let attempt, nil):
            return stop(attempt, .cancelled(reason), now: now)
        case .running(let attempt, .timedOut):
            // Already asked to stop; its grace period runs on, and it ends as cancelled.
            phase = .running(attempt: attempt, stop: .cancelled(reason))
            return []
        case .running(_, .cancelled), .ended:
            return []
        case .backingOff(let attempt):
            return end(.cancelled(reason: reason), after: [.disarm(.backoff(attempt: attempt))])
        }
    }

    /// The running attempt goes on, but a failed one is the last; a back-off ends the task at
    /// once with the failure it waited to retry.
    private mutating func stopRetrying(_ reason: String) -> [Action] {
        guard retryStop == nil else { return [] }
        retryStop = reason
        guard case .backingOff(let attempt) = phase,
            case .failed(let attempts, let duration, let failure, let exitCode) = lastFailure
        else { return [] }
        let ended = TaskEnd.failed(
            attempts: attempts, durationMilliseconds: duration, reason: Self.notRetried(failure, because: reason), exitCode: exitCode)
        return end(ended, after: [.disarm(.backoff(attempt: attempt))])
    }

    /// A failure's reason, saying why it was not retried.
    static func notRetried(_ reason: String, because stop: String) -> String {
        "\(reason); not retried: \(stop)"
    }

    private mutating func stop(_ attempt: Int, _ why: Stop, now: Int64) -> [Action] {
        phase = .running(attempt: attempt, stop: why)
        return [.terminate(attempt: attempt), .arm(.grace(attempt: attempt), at: now + policy.graceMilliseconds)]
    }

    private mutating func end(_ taskEnd: TaskEnd, after actions: [Action] = []) -> [Action] {
        phase = .ended
        var actions = actions
        actions.append(.end(taskEnd))
        return actions
    }
}
