import FlowModel
import Foundation
import Testing

@testable import FlowConsole

@Suite struct LiveConsoleTests {
    /// A console on a file, with a fixed clock and size, that draws only when told to.
    private func console(_ file: OutputFile, colour: Bool = false, now: Int64, columns: Int = 60) throws -> LiveConsole {
        LiveConsole(
            writer: try file.writer(), style: Style(enabled: colour), size: { (columns, 24) },
            clock: { EventScript.base + now }, refreshInterval: .never)
    }

    /// The summary names each failure with its reason and its last output lines, which may have
    /// scrolled away above.
    @Test func finishPrintsEveryTaskInASummaryTableWithoutANSIWhenColourIsOff() throws {
        let file = try OutputFile()
        defer { file.remove() }
        sampleRun().play(into: try console(file, now: 8010))
        #expect(
            try file.text() == """
                workflow upgrade: 4 tasks, concurrency 2
                fetch | downloading index
                build ! warning: slow
                build |
                ↻ fetch retrying in 1.2s: exited with status 1 (attempt 1 failed)
                ✓ fetch 7.4s (2 attempts)
                ✗ build failed: exited with status 2
                - test skipped: needs 'build', which did not succeed
                paused: running tasks go on, none starts until SIGUSR2
                resumed
                ⊘ deploy cancelled: the run failed (fail_fast)

                task    result     duration  attempts
                fetch   succeeded      7.4s         2
                build   failed         8.0s         1
                test    skipped           -         -
                deploy  cancelled         -         -

                build failed: exited with status 2
                  ! warning: slow
                  |
                deploy cancelled: the run failed (fail_fast)

                workflow upgrade failed in 8.0s: 1 succeeded, 1 failed, 1 cancelled, 1 skipped

                """)
    }

    @Test func upToDateTasksAreOneLineOfTheSummaryNotALineEach() throws {
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "build", file: "flow.yaml", tasks: 4, concurrency: 2))
        for task in ["gen", "lib", "docs"] {
            script.at(1, .taskReady(task: task))
            script.at(1, .taskSkipped(task: task, reason: "up-to-date"))
        }
        script.at(2, .taskStarted(task: "app", attempt: 1, kind: "shell"))
        script.at(900, .taskSucceeded(task: "app", attempts: 1, durationMilliseconds: 898))
        var counts = FinalCounts()
        counts.succeeded = 1
        counts.skipped = 3
        counts.upToDate = 3
        script.at(900, .workflowFinished(workflow: "build", status: .succeeded, durationMilliseconds: 900, counts: counts))
        let file = try OutputFile()
        defer { file.remove() }
        script.play(into: try console(file, now: 900))
        #expect(
            try file.text() == """
                workflow build: 4 tasks, concurrency 2
                ✓ app 0.9s

                task  result     duration  attempts
                app   succeeded      0.9s         1

                3 tasks up to date

                workflow build succeeded in 0.9s: 1 succeeded, 3 up to date

                """)
    }

    @Test func doneBeforeTasksAreOneLineOfTheSummaryWithTheRunResumed() throws {
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "build", file: "flow.yaml", tasks: 3, concurrency: 2))
        for task in ["gen", "lib"] {
            script.at(1, .taskReady(task: task))
            script.at(1, .taskSkipped(task: task, reason: "done-before", run: "20261125-030512-123"))
        }
        script.at(2, .taskStarted(task: "app", attempt: 1, kind: "shell"))
        script.at(900, .taskSucceeded(task: "app", attempts: 1, durationMilliseconds: 898))
        var counts = FinalCounts()
        counts.succeeded = 1
        counts.skipped = 2
        counts.doneBefore = 2
        script.at(900, .workflowFinished(workflow: "build", status: .succeeded, durationMilliseconds: 900, counts: counts))
        let file = try OutputFile()
        defer { file.remove() }
        script.play(into: try console(file, now: 900))
        #expect(
            try file.text() == """
                workflow build: 3 tasks, concurrency 2
                ✓ app 0.9s

                task  result     duration  attempts
                app   succeeded      0.9s         1

                2 tasks done before (run 20261125-030512-123)

                workflow build succeeded in 0.9s: 1 succeeded, 2 done before

                """)
    }

    @Test func colourGoesThroughStyleWhenOn() throws {
        let file = try OutputFile()
        defer { file.remove() }
        sampleRun().play(into: try console(file, colour: true, now: 8010))
        let text = try file.text()
        #expect(text.contains("\u{1B}[1mtask    result     duration  attempts\u{1B}[0m"))
        #expect(text.contains("build   \u{1B}[1;31mfailed   \u{1B}[0m      8.0s         1"))
    }

    @Test func drawsTheLiveAreaAndRedrawsItInPlace() throws {
        let file = try OutputFile()
        defer { file.remove() }
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "w", file: "f", tasks: 3, concurrency: 2))
        script.at(0, .taskStarted(task: "fetch", attempt: 1, kind: "shell"))
        script.at(500, .taskStarted(task: "unpack", attempt: 1, kind: "shell"))
        script.at(1000, .taskProgress(task: "fetch", done: 2_500_000, total: 10_000_000, unit: .bytes))
        let console = try console(file, now: 2000)  // 60 columns: the bar shrinks to fit 59
        for event in script.events { console.receive(event) }
        console.drawFrame()
        console.drawFrame()  // nothing changed: nothing written
        console.receive(RunEvent(seq: 5, timeMilliseconds: EventScript.base + 1500, kind: .taskOutput(task: "unpack", stream: .stdout, line: "x")))
        console.receive(
            RunEvent(seq: 6, timeMilliseconds: EventScript.base + 2000, kind: .taskSucceeded(task: "unpack", attempts: 1, durationMilliseconds: 1500)))
        console.drawFrame()
        console.finish()
        let first = """
            workflow w: 3 tasks, concurrency 2
              fetch     2.0s  ████░░░░░░░░░░░░  2.5 MB of 10.0 MB (25%)
              unpack    1.5s
            0/3 done, 2 running · 2.0s

            """
        let second = """
            unpack | x
            ✓ unpack 1.5s
              fetch    2.0s  ████░░░░░░░░░░░░░  2.5 MB of 10.0 MB (25%)
            1/3 done, 1 running · 2.0s

            """
        let summary = """

            task    result     duration  attempts
            unpack  succeeded      1.5s         1

            workflow w cancelled in 2.0s: 1 succeeded

            """
        #expect(try file.text() == "\u{1B}[?25l" + first + "\r\u{1B}[3A\u{1B}[J" + second + "\r\u{1B}[2A\u{1B}[J" + summary + "\u{1B}[?25h")
    }

    /// A download's line: the bar, bytes of the total, the rate since its first report and the
    /// time the rest takes at that rate.
    @Test func aDownloadShowsItsRateAndTimeLeft() {
        var view = LiveView(style: Style(enabled: false))
        view.record(RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "w", file: "f", tasks: 1, concurrency: 1)))
        view.record(RunEvent(seq: 2, timeMilliseconds: 0, kind: .taskStarted(task: "fetch", attempt: 1, kind: "download")))
        view.record(RunEvent(seq: 3, timeMilliseconds: 1000, kind: .taskProgress(task: "fetch", done: 0, total: 10_000_000, unit: .bytes)))
        let first = view.liveLines(now: 1000, columns: 120, rows: 10)
        #expect(first.first == "  fetch    1.0s  ░░░░░░░░░░░░░░░░░░░░  0 B of 10.0 MB (0%)", "no rate from a single report")
        view.record(RunEvent(seq: 4, timeMilliseconds: 3000, kind: .taskProgress(task: "fetch", done: 5_000_000, total: 10_000_000, unit: .bytes)))
        let lines = view.liveLines(now: 3000, columns: 120, rows: 10)
        #expect(lines.first == "  fetch    3.0s  ██████████░░░░░░░░░░  5.0 MB of 10.0 MB (50%)  2.5 MB/s, 2.0s left")
    }

    /// On an 80-column terminal the bar gives way, not the numbers: a download named `download`
    /// of upgrade.yaml showed `… 2.5 MB/s, 2.…` with its time left cut off. The bar shrinks to
    /// what the line leaves, and is dropped below 5 columns.
    @Test func aNarrowTerminalShrinksTheBarAndKeepsTheRateAndTimeLeft() {
        var view = LiveView(style: Style(enabled: false))
        view.record(RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "w", file: "f", tasks: 1, concurrency: 1)))
        view.record(RunEvent(seq: 2, timeMilliseconds: 0, kind: .taskStarted(task: "download", attempt: 1, kind: "download")))
        view.record(RunEvent(seq: 3, timeMilliseconds: 1000, kind: .taskProgress(task: "download", done: 0, total: 10_000_000, unit: .bytes)))
        view.record(RunEvent(seq: 4, timeMilliseconds: 3000, kind: .taskProgress(task: "download", done: 5_000_000, total: 10_000_000, unit: .bytes)))
        let line = view.liveLines(now: 3000, columns: 80, rows: 10).first ?? ""
        #expect(line.count <= 79, "\(line)")
        #expect(line.hasSuffix("5.0 MB of 10.0 MB (50%)  2.5 MB/s, 2.0s left"), "\(line)")
        #expect(line.contains("█"), "a bar still shows: \(line)")
        let narrow = view.liveLines(now: 3000, columns: 60, rows: 10).first ?? ""
        #expect(narrow == "  download    3.0s  5.0 MB of 10.0 MB (50%)  2.5 MB/s, 2.0…", "no room for a bar: \(narrow)")
        let wide = view.liveLines(now: 3000, columns: 120, rows: 10).first ?? ""
        #expect(wide == "  download    3.0s  ██████████░░░░░░░░░░  5.0 MB of 10.0 MB (50%)  2.5 MB/s, 2.0s left")
    }

    @Test func listsAtMostWhatTheScreenHoldsAndCountsTheRest() {
        var view = LiveView(style: Style(enabled: false))
        view.record(RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "w", file: "f", tasks: 30, concurrency: 30)))
        for index in 0..<30 {
            view.record(RunEvent(seq: index + 2, timeMilliseconds: Int64(index), kind: .taskStarted(task: "t\(index)", attempt: 1, kind: "shell")))
        }
        let lines = view.liveLines(now: 10_000, columns: 80, rows: 6)
        #expect(
            lines == [
                "  t0   10.0s",
                "  t1   10.0s",
                "  t2   10.0s",
                "  … and 27 more",
                "0/30 done, 30 running · 10.0s",
            ])
        #expect(view.liveLines(now: 10_000, columns: 80, rows: 100).count == LiveView.maximumTaskLines + 2)
    }

    @Test func showsATaskWaitingToRetry() {
        var view = LiveView(style: Style(enabled: false))
        view.record(RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "w", file: "f", tasks: 1, concurrency: 1)))
        view.record(RunEvent(seq: 2, timeMilliseconds: 0, kind: .taskStarted(task: "t", attempt: 1, kind: "shell")))
        view.record(RunEvent(seq: 3, timeMilliseconds: 1000, kind: .taskRetrying(task: "t", attempt: 1, delayMilliseconds: 2000, reason: "r")))
        #expect(view.liveLines(now: 1500, columns: 80, rows: 24).first == "  t  retry in 1.5s (attempt 1 failed)")
        view.record(RunEvent(seq: 4, timeMilliseconds: 3000, kind: .taskStarted(task: "t", attempt: 2, kind: "shell")))
        #expect(view.liveLines(now: 3500, columns: 80, rows: 24).first == "  t    3.5s  attempt 2")
    }

    /// The timer draws on its own: waits (up to 120 s, polling: a hang guard) for a frame, never a fixed sleep.
    @Test func theTimerDrawsFramesUntilFinish() throws {
        let file = try OutputFile()
        defer { file.remove() }
        let console = LiveConsole(
            writer: try file.writer(), style: Style(enabled: false), size: { (80, 24) },
            clock: { EventScript.base + 1000 }, refreshInterval: .milliseconds(10))
        console.receive(RunEvent(seq: 1, timeMilliseconds: EventScript.base, kind: .workflowStarted(workflow: "w", file: "f", tasks: 1, concurrency: 1)))
        console.receive(RunEvent(seq: 2, timeMilliseconds: EventScript.base, kind: .taskStarted(task: "slow", attempt: 1, kind: "shell")))
        let deadline = Date().addingTimeInterval(120)
        while !(try file.text()).contains("0/1 done, 1 running"), Date() < deadline {
            usleep(5000)
        }
        // A frame may come between the two events (the timer runs from the first), so the
        // first frame's start and the last frame are checked, not the text whole.
        let drawn = try file.text()
        #expect(drawn.hasPrefix("\u{1B}[?25lworkflow w: 1 task, concurrency 1\n"), "\(drawn)")
        #expect(
            drawn.hasSuffix("\n  slow    1.0s\n0/1 done, 1 running · 1.0s\n") || drawn.hasSuffix("[J  slow    1.0s\n0/1 done, 1 running · 1.0s\n"), "\(drawn)")
        console.receive(
            RunEvent(seq: 3, timeMilliseconds: EventScript.base + 1000, kind: .taskSucceeded(task: "slow", attempts: 1, durationMilliseconds: 1000)))
        console.finish()
        let text = try file.text()
        #expect(text.hasSuffix("slow  succeeded      1.0s         1\n\nworkflow w cancelled in 1.0s: 1 succeeded\n\u{1B}[?25h"))
        #expect(text.contains("\r\u{1B}[2A\u{1B}[J✓ slow 1.0s\n"))
    }
}
