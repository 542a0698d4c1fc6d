import FlowConsole
import FlowEvents
import FlowModel
import Foundation

/// Builds event streams for sink tests: `seq` counted from 1, times in milliseconds from 0.
struct EventScript {
    private(set) var events: [RunEvent] = []
    /// The time of the events added next, in milliseconds since the start.
    var now: Int64 = 0

    mutating func at(_ time: Int64, _ kind: RunEvent.Kind) {
        now = time
        events.append(RunEvent(seq: events.count + 1, timeMilliseconds: Self.base + time, kind: kind))
    }

    /// 2026-11-23T09:30:00Z, so that no test depends on times near 1970.
    static let base: Int64 = 1_795_426_200_000

    func play(into sink: any EventSink) {
        for event in events { sink.receive(event) }
        sink.finish()
    }
}

/// A file in a fresh temporary folder that a sink writes to, read back whole.
struct OutputFile {
    let folder: URL
    var path: String { folder.appendingPathComponent("out").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("FlowConsoleTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func writer() throws -> DescriptorWriter {
        try DescriptorWriter(creatingFileAt: path)
    }

    func text(at path: String? = nil) throws -> String {
        try String(contentsOfFile: path ?? self.path, encoding: .utf8)
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// A run of three tasks that covers each kind of event: `fetch` retries and succeeds, `build`
/// fails, `test` is skipped and `deploy` is cancelled.
func sampleRun() -> EventScript {
    var script = EventScript()
    script.at(0, .workflowStarted(workflow: "upgrade", file: "flowrun.yaml", tasks: 4, concurrency: 2))
    script.at(1, .taskReady(task: "fetch"))
    script.at(2, .taskReady(task: "build"))
    script.at(3, .taskStarted(task: "fetch", attempt: 1, kind: "shell"))
    script.at(4, .taskStarted(task: "build", attempt: 1, kind: "shell"))
    script.at(10, .taskOutput(task: "fetch", stream: .stdout, line: "downloading index"))
    script.at(20, .taskOutput(task: "build", stream: .stderr, line: "\u{1B}[31mwarning\u{1B}[0m: slow"))
    script.at(30, .taskOutput(task: "build", stream: .stdout, line: ""))
    script.at(40, .taskProgress(task: "fetch", done: 1_500_000, total: 6_000_000, unit: .bytes))
    script.at(2000, .taskProgress(task: "fetch", done: 3_000_000, total: 6_000_000, unit: .bytes))
    script.at(5040, .taskProgress(task: "fetch", done: 4_500_000, total: 6_000_000, unit: .bytes))
    script.at(5100, .taskRetrying(task: "fetch", attempt: 1, delayMilliseconds: 1200, reason: "exited with status 1"))
    script.at(6300, .taskStarted(task: "fetch", attempt: 2, kind: "shell"))
    script.at(7400, .taskSucceeded(task: "fetch", attempts: 2, durationMilliseconds: 7397))
    script.at(8004, .taskFailed(task: "build", attempts: 1, durationMilliseconds: 8000, reason: "exited with status 2", exitCode: 2))
    script.at(8005, .taskSkipped(task: "test", reason: "needs 'build', which did not succeed"))
    script.at(8006, .queueSuspended)
    script.at(8007, .queueResumed)
    script.at(8008, .taskCancelled(task: "deploy", reason: "the run failed (fail_fast)"))
    var counts = FinalCounts()
    counts.succeeded = 1
    counts.failed = 1
    counts.skipped = 1
    counts.cancelled = 1
    script.at(8010, .workflowFinished(workflow: "upgrade", status: .failed, durationMilliseconds: 8010, counts: counts))
    return script
}
