import FlowModel
import FlowState

@testable import FlowReport

/// A run written as events at chosen milliseconds from its start, and the timeline built from them.
struct RunScript {
    static let start: Int64 = 1_764_039_912_000
    var plan: [RecordHeader.PlanEntry]
    var events: [RunEvent] = []

    init(_ plan: [RecordHeader.PlanEntry]) {
        self.plan = plan
    }

    mutating func at(_ milliseconds: Int64, _ kind: RunEvent.Kind) {
        events.append(RunEvent(seq: events.count + 1, timeMilliseconds: Self.start + milliseconds, kind: kind))
    }

    func timeline(run: String? = "20261125-030512-000") -> RunTimeline {
        var builder = TimelineBuilder(workflow: "ci", run: run, file: "/srv/ci/flowrun.yaml", startedMilliseconds: Self.start, plan: plan)
        for event in events { builder.add(event) }
        return builder.timeline()
    }

    /// build -> (test with a retry, lint) -> deploy skipped; docs up to date; concurrency 2.
    /// test's first attempt fails and is retried; its second fails for good (exit 2).
    static func failedRun() -> RunScript {
        var script = RunScript([
            .init(task: "build", needs: [], kind: "shell", queue: nil, priority: "normal"),
            .init(task: "test", needs: ["build"], kind: "shell", queue: "tests", priority: "high"),
            .init(task: "lint", needs: ["build"], kind: "shell", queue: nil, priority: "low"),
            .init(task: "docs", needs: [], kind: "shell", queue: nil, priority: "normal"),
            .init(task: "deploy", needs: ["test", "lint"], kind: "shell", queue: nil, priority: "normal"),
        ])
        var counts = FinalCounts()
        counts.succeeded = 2
        counts.failed = 1
        counts.skipped = 2
        counts.upToDate = 1
        script.at(0, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 5, concurrency: 2))
        script.at(0, .taskReady(task: "build"))
        script.at(0, .taskReady(task: "docs"))
        script.at(1, .taskSkipped(task: "docs", reason: SkipReason.upToDate))
        script.at(1, .taskStarted(task: "build", attempt: 1, kind: "shell"))
        script.at(50, .taskOutput(task: "build", stream: .stdout, line: "compiling"))
        script.at(1000, .taskSucceeded(task: "build", attempts: 1, durationMilliseconds: 999))
        script.at(1000, .taskReady(task: "test"))
        script.at(1000, .taskReady(task: "lint"))
        script.at(1000, .taskStarted(task: "test", attempt: 1, kind: "shell"))
        script.at(1000, .taskStarted(task: "lint", attempt: 1, kind: "shell"))
        script.at(1500, .taskOutput(task: "lint", stream: .stdout, line: "ok"))
        script.at(1500, .taskSucceeded(task: "lint", attempts: 1, durationMilliseconds: 500))
        script.at(2000, .taskOutput(task: "test", stream: .stderr, line: "flaky \u{1B}[31mred\u{1B}[0m"))
        script.at(2000, .taskRetrying(task: "test", attempt: 1, delayMilliseconds: 500, reason: "exited with status 1", exitCode: 1))
        script.at(2500, .taskStarted(task: "test", attempt: 2, kind: "shell"))
        script.at(3000, .taskOutput(task: "test", stream: .stderr, line: "assertion failed: <b>&</b>"))
        script.at(4000, .taskFailed(task: "test", attempts: 2, durationMilliseconds: 3000, reason: "exited with status 2", exitCode: 2))
        script.at(4000, .taskSkipped(task: "deploy", reason: "needs 'test', which did not succeed"))
        script.at(4001, .workflowFinished(workflow: "ci", status: .failed, durationMilliseconds: 4001, counts: counts))
        return script
    }
}
