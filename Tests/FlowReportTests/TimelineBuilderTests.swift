import FlowModel
import FlowState
import Testing

@testable import FlowReport

/// The timeline the report draws, built from a run's events: what each renderer relies on.
@Suite struct TimelineBuilderTests {
    @Test func eachTaskHasItsReadyTimeItsAttemptsAndItsResult() {
        let timeline = RunScript.failedRun().timeline()
        #expect(timeline.tasks.map(\.id) == ["build", "test", "lint", "docs", "deploy"])
        #expect(timeline.tasks.map(\.result) == [.succeeded, .failed, .succeeded, .upToDate, .skipped])
        #expect(timeline.result == .failed)
        #expect(timeline.durationMilliseconds == 4001)
        #expect(timeline.concurrency == 2)
        let test = timeline.tasks[1]
        #expect(test.readyMilliseconds == RunScript.start + 1000)
        #expect(test.queue == "tests" && test.priority == "high")
        #expect(
            test.attempts == [
                .init(
                    number: 1, startMilliseconds: RunScript.start + 1000, endMilliseconds: RunScript.start + 2000, result: .retried,
                    reason: "exited with status 1", exitCode: 1),
                .init(
                    number: 2, startMilliseconds: RunScript.start + 2500, endMilliseconds: RunScript.start + 4000, result: .failed,
                    reason: "exited with status 2", exitCode: 2),
            ])
        #expect(test.exitCode == 2)
        #expect(test.reason == "exited with status 2")
        // Terminal escapes are gone; a marker shows where the second attempt began.
        #expect(test.tail == ["flaky red", "── attempt 2 ──", "assertion failed: <b>&</b>"])
        #expect(timeline.tasks[3].attempts.isEmpty && timeline.tasks[3].endMilliseconds == RunScript.start + 1)
        #expect(timeline.tasks[4].needs == [1, 2])
    }

    @Test func theCriticalPathFollowsTheNeedThatEndedLast() {
        let timeline = RunScript.failedRun().timeline()
        // test ended last (deploy, skipped, took no time); it waited for build, not for docs.
        #expect(timeline.criticalPath == [0, 1])
        #expect(timeline.tasks.map(\.critical) == [true, true, false, false, false])
    }

    @Test func tasksOnOneSlotNeverOverlapAndARetriedTaskKeepsItsSlot() {
        let timeline = RunScript.failedRun().timeline()
        #expect(timeline.slotCount == 2)
        // lint and test start together; lint, the shorter, comes first in the sweep.
        #expect(timeline.tasks.map(\.slot) == [0, 1, 0, nil, nil])
    }

    @Test func aKilledRunEndsItsOpenAttemptsAtItsLastEventAndCountsFromTheTasks() {
        var script = RunScript([.init(task: "a", needs: [], kind: "shell"), .init(task: "b", needs: ["a"], kind: "shell")])
        script.at(0, .taskReady(task: "a"))
        script.at(0, .taskStarted(task: "a", attempt: 1, kind: "shell"))
        script.at(700, .taskOutput(task: "a", stream: .stdout, line: "half way"))
        let timeline = script.timeline()
        #expect(timeline.result == .interrupted)
        #expect(timeline.tasks[0].result == .unfinished)
        #expect(timeline.tasks[0].attempts.map(\.endMilliseconds) == [RunScript.start + 700])
        #expect(timeline.tasks[1].result == .notReached && timeline.tasks[1].attempts.isEmpty)
        #expect(timeline.counts == FinalCounts())
    }

    @Test func aRunStillGoingIsRunningAndItsOpenAttemptsLastUntilNow() {
        var script = RunScript([.init(task: "a", needs: [], kind: "shell"), .init(task: "b", needs: ["a"], kind: "shell")])
        script.at(0, .taskReady(task: "a"))
        script.at(0, .taskStarted(task: "a", attempt: 1, kind: "shell"))
        script.at(700, .taskOutput(task: "a", stream: .stdout, line: "half way"))
        var builder = TimelineBuilder(
            workflow: "ci", run: "r", file: "/srv/ci/flowrun.yaml", startedMilliseconds: RunScript.start, plan: script.plan)
        for event in script.events { builder.add(event) }
        let timeline = builder.timeline(runningAt: RunScript.start + 5000)
        #expect(timeline.result == .running)
        #expect(timeline.durationMilliseconds == 5000)
        #expect(timeline.tasks[0].result == .running)
        #expect(timeline.tasks[0].attempts.map(\.result) == [.running])
        #expect(timeline.tasks[0].attempts.map(\.endMilliseconds) == [RunScript.start + 5000])
        #expect(timeline.tasks[1].result == .notReached)
        #expect(JobSummary.render(timeline).hasPrefix("### ⏳ flowrun: ci running for 5.0s"))
        // A record that has its end is drawn as it ended.
        let ended = RunScript.failedRun()
        var finished = TimelineBuilder(
            workflow: "ci", run: "r", file: "/srv/ci/flowrun.yaml", startedMilliseconds: RunScript.start, plan: ended.plan)
        for event in ended.events { finished.add(event) }
        #expect(finished.timeline(runningAt: RunScript.start + 9000).result == .failed)
        #expect(finished.timeline(runningAt: RunScript.start + 9000).durationMilliseconds == 4001)
    }

    @Test func aTaskKeepsItsLastLinesOnlyAndCountsTheRest() {
        var script = RunScript([.init(task: "noisy", needs: [], kind: "shell")])
        script.at(0, .taskStarted(task: "noisy", attempt: 1, kind: "shell"))
        for line in 1...1000 { script.at(1, .taskOutput(task: "noisy", stream: .stdout, line: "line \(line)")) }
        script.at(2, .taskSucceeded(task: "noisy", attempts: 1, durationMilliseconds: 2))
        let task = script.timeline().tasks[0]
        #expect(task.tail == (981...1000).map { "line \($0)" })
        #expect(task.droppedLines == 980)
    }

    /// 1,000 tasks of 20 lines of 300 bytes: the tails held stay within the budget, and the tasks
    /// past it say how many lines they printed.
    @Test func theTailsHeldStayWithinTheBudgetWhateverTheRun() {
        let tasks = (0..<1000).map { "t\($0)" }
        var script = RunScript(tasks.map { .init(task: $0, needs: [], kind: "shell") })
        for task in tasks {
            script.at(0, .taskStarted(task: task, attempt: 1, kind: "shell"))
            for line in 0..<20 { script.at(0, .taskOutput(task: task, stream: .stdout, line: String(repeating: "\(line % 10)", count: 299))) }
            script.at(1, .taskSucceeded(task: task, attempts: 1, durationMilliseconds: 1))
        }
        let timeline = script.timeline()
        let held = timeline.tasks.reduce(0) { sum, task in sum + task.tail.reduce(0) { $0 + $1.utf8.count + 1 } }
        #expect(held <= TimelineBuilder.keptTailBytes && held > TimelineBuilder.keptTailBytes - 6000)
        #expect(timeline.tasks.first?.tail.count == 20)
        #expect(timeline.tasks.last?.tail == [] && timeline.tasks.last?.droppedLines == 20)
    }

    @Test func readsARecordBackAsTheLiveRunSawIt() throws {
        let script = RunScript.failedRun()
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.path + "/run.jsonl"
        let header = RecordHeader(
            run: "20261125-030512-000", workflow: "ci", file: "/srv/ci/flowrun.yaml", digest: nil, startedMilliseconds: RunScript.start,
            outputCap: 1 << 20, plan: script.plan)
        let recorder = try RunRecorder(path: path, header: header) { failure in Issue.record("\(failure)") }
        for event in script.events { recorder.receive(event) }
        recorder.finish()
        let (read, unreadable) = try RunTimeline.read(try RunRecord(path: path))
        #expect(unreadable == 0)
        let live = script.timeline()
        #expect(read.tasks == live.tasks)
        #expect(read.criticalPath == live.criticalPath && read.durationMilliseconds == live.durationMilliseconds)
        #expect(read.tasks[1].queue == "tests" && read.tasks[2].priority == "low")
    }

    @Test func aPlanLineWithoutQueueOrPriorityReadsBackAsBefore() {
        let old = RecordHeader.decodePlan(ArraySlice(#"{"plan":[{"task":"a","needs":[],"kind":"shell","fingerprint":null}]}"#.utf8))
        #expect(old == [.init(task: "a", needs: [], kind: "shell")])
        #expect(old.first?.queue == nil && old.first?.priority == nil)
    }
}
