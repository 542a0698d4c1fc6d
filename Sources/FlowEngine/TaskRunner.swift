import Dispatch
import FlowModel
import FlowPlanning

/// Runs one attempt of a task: the only way the engine reaches processes, files or the network.
///
/// Implementation requirements: call `events.output` and `events.progress` only between the
/// start and `completion`, and `completion` exactly once, after the last of them.
public protocol TaskRunner: Sendable {
    func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt

    /// The queue the runner's operations should start on, if it has one; nil (the default)
    /// leaves each `OperationQueue` to start them on a queue of its own.
    var startQueue: StartQueue? { get }
}

extension TaskRunner {
    public var startQueue: StartQueue? { nil }
}

/// A serial queue that also sees the runner's attempts end: every `OperationQueue` of the run
/// uses it as its `underlyingQueue`, so that a task's end, the engine's step and the start of
/// the next task follow one another on one thread, with no thread woken in between. (Waking a
/// worker for each start was the largest cost flowrun added to small tasks: bench/README.md.)
public struct StartQueue: Sendable {
    public var queue: DispatchQueue
    /// Called after operations were added from another thread: the queue may be busy waiting
    /// for the runner's own events (the shell runner's output loop waits in `epoll_wait`).
    public var nudge: @Sendable () -> Void

    public init(queue: DispatchQueue, nudge: @escaping @Sendable () -> Void = {}) {
        self.queue = queue
        self.nudge = nudge
    }
}

/// What an attempt reports while it runs.
public struct AttemptEvents: Sendable {
    /// Lines of output, in order: all those one read brought, together.
    public var output: @Sendable (OutputStream, [String]) -> Void
    public var progress: @Sendable (_ done: Int64, _ total: Int64?, ProgressUnit) -> Void
    /// Whether the sinks have room for more output (`EventBus.hasRoom`); when they have not,
    /// the closure given is called once, from another thread, when they do. A runner stops
    /// reading the task's output until then, so that a slow reader slows the task down.
    public var hasRoomForOutput: @Sendable (_ whenRoom: @escaping @Sendable () -> Void) -> Bool

    public init(
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
public enum AttemptResult: Sendable, Equatable {
    case succeeded
    /// `exitCode` is the shell's exit status when it exited on its own.
    case failed(reason: String, exitCode: Int?)
}

/// A running attempt the engine can stop.
public protocol RunningAttempt: Sendable {
    /// Asks the attempt to stop (SIGTERM to a process group), then forces it after `grace` seconds.
    func terminate(grace: Double)
    /// Stops the attempt at once (SIGKILL).
    func kill()
}

/// Completes every attempt at once without doing anything: measures the engine alone.
///
/// Its operations start on one serial queue, as the shell runner's do on its output loop, so
/// that the engine is measured as a real run uses it.
public struct NoopRunner: TaskRunner {
    public let startQueue: StartQueue? = StartQueue(queue: DispatchQueue(label: "flowrun.noop-starts"))

    public init() {}

    public func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        completion(.succeeded)
        return Finished()
    }

    struct Finished: RunningAttempt {
        func terminate(grace: Double) {}
        func kill() {}
    }
}
