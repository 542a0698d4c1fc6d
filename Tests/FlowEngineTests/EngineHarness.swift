import FlowModel
import FlowPlanning
import FlowTestSupport
import Foundation
import Testing

@testable import FlowEngine

/// A whole `Engine` run on a manual loop: its queues start operations when the loop runs, a
/// fake runner's attempts end when the test says, and the clock moves only by `advance`. The
/// bus writes at once, so the event stream is complete after every step. No process runs and
/// no time passes; a test takes microseconds.
final class EngineHarness: @unchecked Sendable {
    let loop = ManualRunLoop(now: 1_000_000)
    let runner: FakeTaskRunner
    let sink = InMemoryEventSink()
    let bus: EventBus
    let engine: Engine
    private let ended = EndBox()

    /// `yaml` is a whole workflow; write its `concurrency`, as the default is the machine's.
    /// The back-off has no jitter.
    init(_ yaml: String, failFast: Bool? = nil, grace: Double = 10, gate: (any TaskGate)? = nil) throws {
        let plan = try PlannedTasks.plan(yaml)
        runner = FakeTaskRunner(clock: loop)
        bus = EventBus(sinks: [sink], handOff: { $0() })
        engine = Engine(
            plan: plan, runner: runner, loop: loop, bus: bus,
            options: .init(concurrency: plan.concurrency, failFast: failFast ?? plan.workflow.failFast, grace: grace),
            gate: gate, jitter: { 1 })
    }

    private final class EndBox: @unchecked Sendable {
        var statuses: [RunStatus] = []
    }

    /// Starts the run, and lets the loop start the first tasks.
    func start() {
        let ended = ended
        engine.start { ended.statuses.append($0) }
        loop.runPosted()
    }

    /// Ends the running attempt of `task`, as its runner would on the loop.
    func end(_ task: TaskID, _ result: AttemptResult = .succeeded) throws {
        try #require(runner.running(task), "'\(task)' is not running").end(result)
        loop.runPosted()
    }

    func advance(by milliseconds: Int64) { loop.advance(by: milliseconds) }

    /// The tasks whose attempt is running, in the order they started.
    var running: [TaskID] { runner.inFlight.map(\.task) }
    /// Every attempt started, by task, in order.
    var started: [TaskID] { runner.attempts.map(\.task) }
    func attempt(_ task: TaskID) throws -> FakeTaskRunner.Attempt {
        try #require(runner.attempts.last { $0.task == task }, "'\(task)' never started")
    }

    /// The statuses `whenFinished` was called with: one, once the run is over.
    var finished: [RunStatus] { ended.statuses }
    var events: [RunEvent.Kind] { sink.kinds }

    /// The final event of `task`: succeeded, failed, cancelled or skipped.
    func finalEvent(of task: TaskID) -> RunEvent.Kind? {
        events.last { kind in
            switch kind {
            case .taskSucceeded(task, _, _), .taskFailed(task, _, _, _, _, _), .taskCancelled(task, _), .taskSkipped(task, _, _): true
            default: false
            }
        }
    }

    /// The `workflow.finished` event, once there is one.
    var workflowFinished: (status: RunStatus, durationMilliseconds: Int64, counts: FinalCounts)? {
        for case .workflowFinished(_, let status, let duration, let counts) in events { return (status, duration, counts) }
        return nil
    }

    /// The position of the first event equal to `kind`.
    func position(of kind: RunEvent.Kind) -> Int? { events.firstIndex(of: kind) }
}

/// A gate that skips the tasks it is given as up to date, and remembers the successes.
final class SkippingGate: TaskGate, @unchecked Sendable {
    private let skipped: Set<Int>
    private(set) var succeeded: [Int] = []

    init(skipping skipped: Set<Int>) { self.skipped = skipped }

    func skipReason(for task: Int) -> String? { skipped.contains(task) ? SkipReason.upToDate : nil }
    func taskSucceeded(_ task: Int) { succeeded.append(task) }
}
