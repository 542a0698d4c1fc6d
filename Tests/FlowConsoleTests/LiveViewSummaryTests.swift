import FlowModel
import Testing

@testable import FlowConsole

/// The end summary of a run of thousands of tasks: what went wrong and what took long, not a
/// screenful per hundred tasks; `--summary all` for every row.
@Suite struct LiveViewSummaryTests {
    /// 2,000 tasks: `t0`... took `index` ms; `t500` failed, `t900` was cancelled while running,
    /// `t1999` was cancelled before it started, `t1998` was skipped.
    func bigRun(_ mode: SummaryMode) -> LiveView {
        var view = LiveView(style: Style(enabled: false), summaryMode: mode)
        view.record(RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "big", file: "f", tasks: 2000, concurrency: 4)))
        for index in 0..<1998 {
            let task = "t\(index)", duration = Int64(index)
            view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskStarted(task: task, attempt: 1, kind: "shell")))
            switch index {
            case 500:
                view.record(
                    RunEvent(
                        seq: 0, timeMilliseconds: duration,
                        kind: .taskFailed(task: task, attempts: 1, durationMilliseconds: duration, reason: "exited with status 2", exitCode: 2)))
            case 900:
                view.record(RunEvent(seq: 0, timeMilliseconds: duration, kind: .taskCancelled(task: task, reason: "the run was cancelled")))
            default:
                view.record(RunEvent(seq: 0, timeMilliseconds: duration, kind: .taskSucceeded(task: task, attempts: 1, durationMilliseconds: duration)))
            }
        }
        view.record(RunEvent(seq: 0, timeMilliseconds: 2000, kind: .taskSkipped(task: "t1998", reason: "needs 't500', which did not succeed")))
        view.record(RunEvent(seq: 0, timeMilliseconds: 2000, kind: .taskCancelled(task: "t1999", reason: "the run was cancelled")))
        return view
    }

    /// The table's rows: lines that start with a task id (`t12`) and hold no reason.
    func rows(of summary: String) -> [Substring] {
        summary.split(separator: "\n").filter { $0.first == "t" && $0.dropFirst().first?.isNumber == true && !$0.contains(":") }
    }

    @Test func aRunOfThousandsShowsTheFailuresAndTheTenSlowest() {
        let summary = bigRun(.auto).summary(now: 2000)
        #expect(
            summary == """

                2000 tasks: the failures and the 10 slowest (--summary all lists every task)
                task   result     duration  attempts
                t500   failed         0.5s         1
                t900   cancelled      0.9s         1
                t1997  succeeded      2.0s         1
                t1996  succeeded      2.0s         1
                t1995  succeeded      2.0s         1
                t1994  succeeded      2.0s         1
                t1993  succeeded      2.0s         1
                t1992  succeeded      2.0s         1
                t1991  succeeded      2.0s         1
                t1990  succeeded      2.0s         1
                t1989  succeeded      2.0s         1
                t1988  succeeded      2.0s         1

                t500 failed: exited with status 2
                t900 cancelled: the run was cancelled

                workflow big failed in 2.0s: 1996 succeeded, 1 failed, 2 cancelled, 1 skipped

                """)
    }

    @Test func summaryAllListsEveryTask() {
        let summary = bigRun(.all).summary(now: 2000)
        #expect(rows(of: summary).count == 2000)
        #expect(!summary.contains("--summary all"))
        #expect(summary.contains("t1999  cancelled"))
    }

    @Test func fiftyTasksStillGetARowEach() {
        var view = LiveView(style: Style(enabled: false))
        view.record(RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "w", file: "f", tasks: 51, concurrency: 4)))
        for index in 0..<LiveView.compactSummaryAbove {
            view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskSucceeded(task: "t\(index)", attempts: 1, durationMilliseconds: 5)))
        }
        #expect(rows(of: view.summary(now: 10)).count == 50)
        view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskSucceeded(task: "t50", attempts: 1, durationMilliseconds: 5)))
        let compact = view.summary(now: 10)
        #expect(compact.contains("51 tasks: the failures and the 10 slowest"))
        #expect(rows(of: compact).count == 10)
    }

    /// A 64-character task id on an 80-column terminal: the table still fits, where each of its
    /// rows was 91 columns and the terminal wrapped every one of them in two.
    @Test func theTableFitsTheTerminalWhenATaskIdIsLong() {
        let long = String(repeating: "w", count: 64)
        var view = LiveView(style: Style(enabled: false))
        view.record(RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "flow", file: "f", tasks: 2, concurrency: 2)))
        for task in ["colour", long] {
            view.record(RunEvent(seq: 0, timeMilliseconds: 0, kind: .taskStarted(task: task, attempt: 1, kind: "shell")))
            view.record(RunEvent(seq: 0, timeMilliseconds: 5, kind: .taskSucceeded(task: task, attempts: 1, durationMilliseconds: 5)))
        }
        let lines = view.summary(now: 10, columns: 80).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count < 80 })
        let table = lines.drop { !$0.hasPrefix("task") }.prefix(4)
        #expect(
            Array(table) == [
                "task                                              result     duration  attempts",
                "colour                                            succeeded      0.0s         1",
                Substring(long),
                "                                                  succeeded      0.0s         1",
            ])
    }
}
