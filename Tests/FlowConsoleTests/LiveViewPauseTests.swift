import FlowModel
import Testing

@testable import FlowConsole

/// Pausing in the live view, as a person at the terminal sees it: the header says how, the
/// counter says it is paused and gives no ETA, and tasks kept from before neither wait nor
/// count in the rate. Time is the events' and the frame's, not a clock.
@Suite struct LiveViewPauseTests {
    func event(_ time: Int64, _ kind: RunEvent.Kind) -> RunEvent {
        RunEvent(seq: 0, timeMilliseconds: time, kind: kind)
    }

    func started(tasks: Int, pauseHint: PauseHint? = nil) -> LiveView {
        var view = LiveView(style: Style(enabled: false), pauseHint: pauseHint)
        view.record(event(0, .workflowStarted(workflow: "w", file: "f", tasks: tasks, concurrency: 2)))
        return view
    }

    func counter(_ view: LiveView, now: Int64) -> String {
        view.liveLines(now: now, columns: 200, rows: 50).last ?? ""
    }

    func finish(_ view: inout LiveView, _ task: TaskID, at time: Int64) {
        view.record(event(time, .taskStarted(task: task, attempt: 1, kind: "shell")))
        view.record(event(time, .taskSucceeded(task: task, attempts: 1, durationMilliseconds: 1000)))
    }

    @Test func theHeaderSaysToPressPOrToSendSIGUSR1ToThePID() {
        var view = started(tasks: 3, pauseHint: PauseHint(key: true, pid: 4242))
        #expect(
            LiveView.render(view.takeNotes(), style: Style(enabled: false), pauseHint: view.pauseHint) == """
                workflow w: 3 tasks, concurrency 2
                pause: press p (p again resumes), or kill -USR1 4242 (kill -USR2 4242 resumes)

                """)
    }

    /// Standard input is no terminal (or flowrun runs in the background): no key, only the signal.
    @Test func withoutTheKeyTheHeaderGivesOnlyTheSignal() {
        var view = started(tasks: 3, pauseHint: PauseHint(key: false, pid: 77))
        let text = LiveView.render(view.takeNotes(), style: Style(enabled: false), pauseHint: view.pauseHint)
        #expect(text.hasSuffix("\npause: kill -USR1 77 (kill -USR2 77 resumes)\n"), "\(text)")
    }

    @Test func whilePausedTheCounterSaysSoAndGivesNoETA() {
        var view = started(tasks: 4, pauseHint: PauseHint(key: true, pid: 4242))
        for (index, task) in ["a", "b", "c"].enumerated() { finish(&view, task, at: Int64(index + 1) * 1000) }
        #expect(counter(view, now: 3000) == "3/4 done, 0 running · 3.0s · ETA 1.0s")

        view.record(event(3000, .queueSuspended))
        #expect(counter(view, now: 5000) == "3/4 done, 0 running · 5.0s · paused (p or SIGUSR2 resumes)")
        #expect(
            LiveView.render(view.takeNotes().suffix(1), style: Style(enabled: false), pauseHint: view.pauseHint)
                == "paused: running tasks go on, none starts until p or SIGUSR2\n")

        view.record(event(6000, .queueResumed))
        #expect(counter(view, now: 6000) == "3/4 done, 0 running · 6.0s · ETA 2.0s")
    }

    /// `--resume` and up-to-date tasks end at once, after their `task.ready`: they never wait
    /// for a slot, and a rate that counted them would promise the rest in no time.
    @Test func doneBeforeAndUpToDateTasksNeitherWaitNorCountInTheETA() {
        var view = started(tasks: 14)
        for index in 0..<10 {
            view.record(event(0, .taskReady(task: "kept\(index)")))
            let kind: RunEvent.Kind =
                index < 5
                ? .taskSkipped(task: "kept\(index)", reason: SkipReason.upToDate)
                : .taskSkipped(task: "kept\(index)", reason: SkipReason.doneBefore, run: "20260101-120000")
            view.record(event(0, kind))
        }
        #expect(counter(view, now: 0) == "10/14 done, 0 running, 5 up to date, 5 done before · 0.0s")
        for (index, task) in ["a", "b", "c"].enumerated() { finish(&view, task, at: Int64(index + 1) * 1000) }
        // 3 of the 4 that run, in 3s: the last takes 1s more, not 3s × 1 / 13.
        #expect(counter(view, now: 3000) == "13/14 done, 0 running, 5 up to date, 5 done before · 3.0s · ETA 1.0s")
    }
}
