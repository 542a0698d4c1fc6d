import FlowLoading
import FlowModel
import FlowPlanning
import Testing

@testable import FlowConsole

/// The counter under the live area, as a person watching a long run reads it: how long is left,
/// how many tasks wait, and what they wait for. Time is the events' and the frame's, not a clock.
@Suite struct LiveViewProgressTests {
    func counter(_ view: LiveView, now: Int64) -> String {
        view.liveLines(now: now, columns: 200, rows: 50).last ?? ""
    }

    func started(tasks: Int, concurrency: Int = 2, layout: RunLayout = RunLayout()) -> LiveView {
        var view = LiveView(style: Style(enabled: false), layout: layout)
        view.record(RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "w", file: "f", tasks: tasks, concurrency: concurrency)))
        return view
    }

    func finish(_ view: inout LiveView, _ task: TaskID, at time: Int64) {
        view.record(RunEvent(seq: 0, timeMilliseconds: time, kind: .taskStarted(task: task, attempt: 1, kind: "shell")))
        view.record(RunEvent(seq: 0, timeMilliseconds: time, kind: .taskSucceeded(task: task, attempts: 1, durationMilliseconds: 1000)))
    }

    @Test func anETAAppearsOnceThreeTasksAndATenthOfTheRunHaveFinished() {
        var view = started(tasks: 40)
        finish(&view, "a", at: 1000)
        finish(&view, "b", at: 2000)
        #expect(!counter(view, now: 2000).contains("ETA"), "two tasks say little about the rest")
        finish(&view, "c", at: 3000)
        #expect(!counter(view, now: 3000).contains("ETA"), "3 of 40 is less than a tenth")
        finish(&view, "d", at: 4000)
        // 4 of 40 in 4s: the other 36 at that rate take 36s.
        #expect(counter(view, now: 4000) == "4/40 done, 0 running · 4.0s · ETA 36.0s")
        // Nothing more finished for 4s: the rate fell, the estimate grows (8s × 36 / 4).
        #expect(counter(view, now: 8000) == "4/40 done, 0 running · 8.0s · ETA 1m12s")
    }

    @Test func aSmallRunNeedsThreeFinishedTasksAndAFinishedRunHasNoETA() {
        var view = started(tasks: 4)
        finish(&view, "a", at: 1000)
        finish(&view, "b", at: 2000)
        #expect(!counter(view, now: 2000).contains("ETA"), "half the run, but only two tasks")
        finish(&view, "c", at: 3000)
        #expect(counter(view, now: 3000).hasSuffix(" · ETA 1.0s"))
        finish(&view, "d", at: 4000)
        #expect(!counter(view, now: 4000).contains("ETA"))
    }

    @Test func saysHowManyTasksWaitAndWhichQueueIsFull() throws {
        let yaml = """
            version: 1
            concurrency: 8
            queues: {network: {concurrency: 3}, disk: {concurrency: 1}}
            tasks:
            \((0..<15).map { "  fetch\($0): {queue: network, shell: \"true\"}" }.joined(separator: "\n"))
              local: {shell: "true"}
            """
        let loaded = WorkflowLoader.decode(Array(yaml.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        let workflow = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        var view = started(tasks: 16, concurrency: 8, layout: RunLayout(plan))
        #expect(!counter(view, now: 0).contains("waiting"), "nothing is ready yet")
        for index in 0..<15 { view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskReady(task: "fetch\(index)"))) }
        view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskReady(task: "local")))
        for task in ["fetch0", "fetch1", "fetch2", "local"] {
            view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskStarted(task: task, attempt: 1, kind: "shell")))
        }
        #expect(counter(view, now: 1000) == "0/16 done, 4 running · 1.0s · 12 waiting · queue network full (3/3)")
        view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskSucceeded(task: "fetch0", attempts: 1, durationMilliseconds: 1000)))
        #expect(counter(view, now: 1000) == "1/16 done, 3 running · 1.0s · 12 waiting", "a slot is free: the next one is about to start")
        for index in 3..<15 {
            view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskCancelled(task: "fetch\(index)", reason: "the run was cancelled")))
        }
        #expect(!counter(view, now: 1000).contains("waiting"), "cancelled tasks wait no more")
    }

    @Test func whenEveryRunSlotIsTakenItSaysSo() {
        var view = started(tasks: 5, concurrency: 2)
        for task in ["a", "b", "c", "d"] { view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskReady(task: task))) }
        for task in ["a", "b"] { view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskStarted(task: task, attempt: 1, kind: "shell"))) }
        #expect(counter(view, now: 500) == "0/5 done, 2 running · 0.5s · 2 waiting · concurrency full (2/2)")
        // A retry keeps its slot; its second start is not a new task.
        view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskStarted(task: "a", attempt: 2, kind: "shell")))
        #expect(counter(view, now: 500) == "0/5 done, 2 running · 0.5s · 2 waiting · concurrency full (2/2)")
    }
}
