import Dispatch
import FlowModel
import FlowPlanning

/// Runs one attempt of a task: the only way the engine reaches processes, files or the network.
///
/// Implementation requirements: never block the engine's loop (`EngineLoop`): start the work
/// and return. Call `events.output` and `events.progress` only between the start and
/// `completion`, and `completion` exactly once, after the last of them, on the loop (or at once,
/// inside `startAttempt`).
package protocol TaskRunner: Sendable {
    func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt
}

/// What an attempt reports while it runs.
package struct AttemptEvents: Sendable {
    /// Lines of output, in order: all those one read brought, together.
    package var output: @Sendable (OutputStream, [String]) -> Void
    package var progress: @Sendable (_ done: Int64, _ total: Int64?, ProgressUnit) -> Void
    /// Whether the sinks have room for more output (`EventBus.hasRoom`); when they have not,
    /// the closure given is called once, from another thread, when they do. A runner stops
    /// reading the task's output until then, so that a slow reader slows the task down.
    package var hasRoomForOutput: @Sendable (_ whenRoom: @escaping @Sendable () -> Void) -> Bool

    package init(
        output: @escaping @Sendable (OutputStream, [String]) -> Void,
        progress: @escaping @Sendable (Int64, Int64?, ProgressUnit) -> Void,
        hasRoomForOutput: @escaping @Sendable (_ whenRoom: @escaping @Sendable () -> Void) -> Bool = { _ in true }
    ) {
        self.output = output
        self.progress = progress
        self.hasRoomForOutput = hasRoomForOutput
    }
}

/// How one attempt ended.
package enum AttemptResult: Sendable, Equatable {
    case succeeded
    /// `exitCode` is the shell's exit status when it exited on its own.
    case failed(reason: String, exitCode: Int?)
    /// A failure that knows better than the task's policy whether another attempt can help:
    /// `retryable: false` ends the task now, whatever retries are left (an HTTP 404, a bad
    /// checksum); `notBeforeMilliseconds` lengthens a shorter back-off (a server's Retry-After).
    case failedAdvising(reason: String, retryable: Bool, notBeforeMilliseconds: Int64?)
}

/// A running attempt the engine can stop. The grace period between the two is the engine's.
package protocol RunningAttempt: Sendable {
    /// Asks the attempt to stop: SIGTERM to a process group, then SIGCONT so that a stopped
    /// process can act on it.
    func terminate()
    /// Stops the attempt at once (SIGKILL).
    func kill()
    /// Asks the attempt to stop because its `timeout` is over: as `terminate`, but what it
    /// did that the next attempt can go on from is kept (a download's bytes, as after a
    /// broken-off body), where a cancel throws it away.
    func timeOut()
    /// Tells the attempt its terminal hung up (SIGHUP to its process group), as the kernel
    /// tells a terminal's foreground job; nothing for work with no process of its own.
    func hangUp()
}

extension RunningAttempt {
    package func timeOut() { terminate() }
    package func hangUp() {}
}

/// Completes every attempt at once without doing anything: measures the engine alone.
///
/// Run it on a `SerialQueueLoop`: its operations then start on one serial queue, as the shell
/// runner's do on its output loop, so that the engine is measured as a real run uses it.
package struct NoopRunner: TaskRunner {
    package init() {}

    package func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        completion(.succeeded)
        return Finished()
    }

    struct Finished: RunningAttempt {
        func terminate() {}
        func kill() {}
    }
}
