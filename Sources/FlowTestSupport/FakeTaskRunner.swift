import FlowEngine
import FlowModel
import FlowPlanning

/// A `TaskRunner` whose attempts run until the test ends them by hand, and which records the
/// signals each attempt gets with the loop's time.
///
/// - Warning: for one test thread, with a `ManualRunLoop`.
package final class FakeTaskRunner: TaskRunner, @unchecked Sendable {
    package enum Signal: Equatable, Sendable {
        /// `RunningAttempt.terminate()`: SIGTERM, then SIGCONT.
        case terminate
        /// `RunningAttempt.kill()`: SIGKILL.
        case kill
        /// `RunningAttempt.hangUp()`: SIGHUP.
        case hangUp
    }

    package final class Attempt: RunningAttempt, @unchecked Sendable {
        package let task: TaskID
        package let number: Int
        package let startedAt: Int64
        /// Each signal and when it came.
        package private(set) var signals: [(signal: Signal, at: Int64)] = []
        package private(set) var hasEnded = false
        private let clock: any EngineLoop
        private let completion: @Sendable (AttemptResult) -> Void

        init(task: TaskID, number: Int, clock: any EngineLoop, completion: @escaping @Sendable (AttemptResult) -> Void) {
            self.task = task
            self.number = number
            self.clock = clock
            self.completion = completion
            startedAt = clock.now
        }

        /// Ends the attempt, as the runner would on the loop.
        package func end(_ result: AttemptResult) {
            precondition(!hasEnded, "an attempt ends once")
            hasEnded = true
            completion(result)
        }

        package func terminate() { signals.append((.terminate, clock.now)) }
        package func kill() { signals.append((.kill, clock.now)) }
        package func hangUp() { signals.append((.hangUp, clock.now)) }
    }

    private let clock: any EngineLoop
    /// Every attempt started, in order.
    package private(set) var attempts: [Attempt] = []
    /// Runs inside `startAttempt`, once the attempt has started and before its handle is
    /// returned: what a signal does while a real runner's spawn is under way (its child already
    /// running, its pid not yet known to the caller).
    package var whileStarting: (Attempt) -> Void = { _ in }

    package init(clock: any EngineLoop) {
        self.clock = clock
    }

    package var running: Attempt? { attempts.last.flatMap { $0.hasEnded ? nil : $0 } }

    /// The attempts started and not ended, in the order they started.
    package var inFlight: [Attempt] { attempts.filter { !$0.hasEnded } }

    /// The attempt of `task` that is running, if one is.
    package func running(_ task: TaskID) -> Attempt? {
        attempts.last { $0.task == task && !$0.hasEnded }
    }

    package func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        let started = Attempt(task: task.id, number: attempt, clock: clock, completion: completion)
        attempts.append(started)
        whileStarting(started)
        return started
    }
}
