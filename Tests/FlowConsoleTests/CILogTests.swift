import FlowModel
import Foundation
import Testing

@testable import FlowConsole

/// What a user of GitHub Actions or any CI log expects of the plain log: a tool's own workflow
/// commands work inside flowrun as in a step of their own, and the end of the log says what
/// failed and why, without scrolling back.
@Suite struct CILogTests {
    private func log(of script: EventScript, githubActions: Bool) throws -> [String] {
        let file = try OutputFile()
        defer { file.remove() }
        script.play(into: PlainLog(writer: try file.writer(), githubActions: githubActions, stopToken: "flowrun-T"))
        return try file.text().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func aToolsOwnWorkflowCommandsReachGitHubAtTheStartOfTheirLine() throws {
        var script = EventScript()
        script.at(0, .taskStarted(task: "lint", attempt: 1, kind: "shell"))
        script.at(1, .taskOutput(task: "lint", stream: .stdout, line: "::add-mask::s3cr3t"))
        script.at(2, .taskOutput(task: "lint", stream: .stderr, line: "::error file=src/app.py,line=3::undefined name 'x'"))
        script.at(3, .taskSucceeded(task: "lint", attempts: 1, durationMilliseconds: 3))
        #expect(
            try log(of: script, githubActions: true) == [
                "::group::lint",
                "[lint] started (shell)",
                "::add-mask::s3cr3t",
                "::error file=src/app.py,line=3::undefined name 'x'",
                "::endgroup::",
                "[lint] succeeded in 0.0s",
                "",
            ])
    }

    @Test func outsideGitHubEveryOutputLineStillNamesItsTask() throws {
        var script = EventScript()
        script.at(0, .taskStarted(task: "lint", attempt: 1, kind: "shell"))
        script.at(1, .taskOutput(task: "lint", stream: .stderr, line: "::error file=src/app.py,line=3::undefined name 'x'"))
        script.at(3, .taskSucceeded(task: "lint", attempts: 1, durationMilliseconds: 3))
        #expect(try log(of: script, githubActions: false).contains("[lint] ! ::error file=src/app.py,line=3::undefined name 'x'"))
    }

    /// `build` prints 15 lines and fails; `docs` prints and succeeds; `flaky` fails its first
    /// attempt loudly, and its second quietly.
    private func runWithFailures() -> EventScript {
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 3, concurrency: 3))
        for task in ["build", "docs", "flaky"] { script.at(1, .taskStarted(task: task, attempt: 1, kind: "shell")) }
        for index in 1...15 { script.at(2, .taskOutput(task: "build", stream: index == 15 ? .stderr : .stdout, line: "build line \(index)")) }
        script.at(3, .taskOutput(task: "docs", stream: .stdout, line: "docs line"))
        script.at(3, .taskOutput(task: "flaky", stream: .stdout, line: "first attempt line"))
        script.at(4, .taskRetrying(task: "flaky", attempt: 1, delayMilliseconds: 10, reason: "exited with status 1"))
        script.at(14, .taskStarted(task: "flaky", attempt: 2, kind: "shell"))
        script.at(20, .taskFailed(task: "build", attempts: 1, durationMilliseconds: 19, reason: "exited with status 2", exitCode: 2))
        script.at(21, .taskSucceeded(task: "docs", attempts: 1, durationMilliseconds: 20))
        script.at(22, .taskFailed(task: "flaky", attempts: 2, durationMilliseconds: 21, reason: "exited with status 1", exitCode: 1))
        var counts = FinalCounts()
        counts.succeeded = 1
        counts.failed = 2
        script.at(30, .workflowFinished(workflow: "ci", status: .failed, durationMilliseconds: 30, counts: counts))
        return script
    }

    @Test(arguments: [false, true])
    func theLogEndsByNamingEachFailedTaskWithItsLastLines(githubActions: Bool) throws {
        let lines = try log(of: runWithFailures(), githubActions: githubActions)
        let end = try #require(lines.lastIndex(of: "failed tasks, with the last lines of their output:"))
        var expected = ["failed tasks, with the last lines of their output:", "[build] failed in 0.0s: exited with status 2"]
        expected += (6...14).map { "[build] | build line \($0)" }
        expected += ["[build] ! build line 15", "[flaky] failed after 2 attempts in 0.0s: exited with status 1"]
        expected += ["workflow ci failed in 0.0s: 1 succeeded, 2 failed", ""]
        #expect(Array(lines[end...]) == expected)
    }

    @Test func aRunWithoutFailuresEndsWithItsCountsAlone() throws {
        var script = EventScript()
        script.at(0, .taskStarted(task: "a", attempt: 1, kind: "shell"))
        script.at(1, .taskOutput(task: "a", stream: .stdout, line: "fine"))
        script.at(2, .taskSucceeded(task: "a", attempts: 1, durationMilliseconds: 2))
        var counts = FinalCounts()
        counts.succeeded = 1
        script.at(3, .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 3, counts: counts))
        #expect(try log(of: script, githubActions: false).suffix(2) == ["workflow ci succeeded in 0.0s: 1 succeeded", ""])
    }

    /// A run of thousands of failing tasks names each, but keeps lines for the first few only,
    /// and each line cut to a bounded length: the log's memory does not grow with the output.
    @Test func theEndIsBoundedWhenManyTasksFail() throws {
        var script = EventScript()
        let failing = FailureTails.failuresWithLines + 5
        for index in 0..<failing {
            let task = "t\(index)"
            script.at(0, .taskStarted(task: task, attempt: 1, kind: "shell"))
            script.at(1, .taskOutput(task: task, stream: .stdout, line: String(repeating: "x", count: 10_000)))
            script.at(2, .taskFailed(task: task, attempts: 1, durationMilliseconds: 2, reason: "exited with status 1", exitCode: 1))
        }
        script.at(3, .workflowFinished(workflow: "ci", status: .failed, durationMilliseconds: 3, counts: FinalCounts()))
        let lines = try log(of: script, githubActions: false)
        let end = try #require(lines.lastIndex(of: "failed tasks, with the last lines of their output:"))
        let section = lines[end...]
        #expect(section.filter { $0.hasSuffix("failed in 0.0s: exited with status 1") }.count == failing)
        let outputLines = section.filter { $0.contains("] | ") }
        #expect(outputLines.count == FailureTails.failuresWithLines)
        #expect(outputLines.allSatisfy { $0.count < FailureTails.maximumLineLength + 20 })
        #expect(!section.contains { $0.hasPrefix("[t\(failing - 1)] |") })
    }

    /// A task that prints GitHub's fold commands (a tool's own `::group::`, a stray
    /// `::endgroup::`, the older `##[endgroup]` anywhere in a line) cannot end flowrun's fold
    /// early or open one inside it, which GitHub cannot show: those lines are shown as text.
    @Test func aTasksFoldCommandsNeitherEndNorNestFlowrunsFold() throws {
        var script = EventScript()
        script.at(0, .taskStarted(task: "a", attempt: 1, kind: "shell"))
        for line in ["::endgroup::", "  ::group::forged", "x ##[endgroup] y", "::warning::kept"] {
            script.at(1, .taskOutput(task: "a", stream: .stdout, line: line))
        }
        script.at(2, .taskSucceeded(task: "a", attempts: 1, durationMilliseconds: 2))
        #expect(
            try log(of: script, githubActions: true) == [
                "::group::a", "[a] started (shell)",
                "::stop-commands::flowrun-T", "::endgroup::", "::flowrun-T::",
                "::stop-commands::flowrun-T", "  ::group::forged", "::flowrun-T::",
                "::stop-commands::flowrun-T", "x ##[endgroup] y", "::flowrun-T::",
                "::warning::kept",
                "::endgroup::", "[a] succeeded in 0.0s", "",
            ])
    }

    /// The runner finds a command's name up to the first space, and `]`, one UTF-16 unit at a
    /// time: a combining mark after the space or the `]` does not hide the command from it, so
    /// it does not hide it from flowrun either (a space and a mark are one Character).
    @Test func aCombiningMarkAfterTheNameDoesNotHideAFoldCommand() throws {
        var script = EventScript()
        script.at(0, .taskStarted(task: "a", attempt: 1, kind: "shell"))
        for line in ["::endgroup \u{301}::", "x ##[group]\u{301} y", "::stop-commands \u{301}::tok1"] {
            script.at(1, .taskOutput(task: "a", stream: .stdout, line: line))
        }
        script.at(2, .taskSucceeded(task: "a", attempts: 1, durationMilliseconds: 2))
        #expect(
            try log(of: script, githubActions: true) == [
                "::group::a", "[a] started (shell)",
                "::stop-commands::flowrun-T", "::endgroup \u{301}::", "::flowrun-T::",
                "::stop-commands::flowrun-T", "x ##[group]\u{301} y", "::flowrun-T::",
                "::stop-commands \u{301}::tok1", "::tok1::",
                "::endgroup::", "[a] succeeded in 0.0s", "",
            ])
    }

    /// A tool may stop the runner's commands to print text safely (`::stop-commands::TOKEN`);
    /// if it does not resume them, flowrun does before its `::endgroup::`, which would be text
    /// otherwise, as would every later task's fold and `::error::`.
    @Test func aTasksStoppedCommandsAreResumedBeforeItsFoldEnds() throws {
        var script = EventScript()
        script.at(0, .taskStarted(task: "a", attempt: 1, kind: "shell"))
        script.at(1, .taskOutput(task: "a", stream: .stdout, line: "::stop-commands::tok123"))
        script.at(1, .taskOutput(task: "a", stream: .stdout, line: "::endgroup::"))
        script.at(2, .taskSucceeded(task: "a", attempts: 1, durationMilliseconds: 2))
        script.at(3, .taskStarted(task: "b", attempt: 1, kind: "shell"))
        script.at(4, .taskOutput(task: "b", stream: .stdout, line: "::stop-commands::t1"))
        script.at(4, .taskOutput(task: "b", stream: .stdout, line: "::t1::"))
        script.at(5, .taskFailed(task: "b", attempts: 1, durationMilliseconds: 2, reason: "exited with status 1", exitCode: 1))
        #expect(
            try log(of: script, githubActions: true) == [
                "::group::a", "[a] started (shell)", "::stop-commands::tok123", "::endgroup::", "::tok123::", "::endgroup::",
                "[a] succeeded in 0.0s",
                "::group::b", "[b] started (shell)", "::stop-commands::t1", "::t1::", "::endgroup::",
                "[b] failed in 0.0s: exited with status 1", "::error::b failed: exited with status 1", "",
            ])
    }

    /// flowrun's own lines quote a task's text (a reason, its output in the failure summary):
    /// none of it is read as a command, such as GitHub's older `##[error]`, found anywhere in a line.
    @Test func flowrunsOwnLinesQuotingATaskRunNoCommand() throws {
        var script = EventScript()
        script.at(0, .taskStarted(task: "b", attempt: 1, kind: "shell"))
        script.at(1, .taskOutput(task: "b", stream: .stdout, line: "##[error]in the summary"))
        script.at(2, .taskFailed(task: "b", attempts: 1, durationMilliseconds: 2, reason: "cannot run '##[error]x'", exitCode: nil))
        var counts = FinalCounts()
        counts.failed = 1
        script.at(3, .workflowFinished(workflow: "ci", status: .failed, durationMilliseconds: 3, counts: counts))
        #expect(
            try log(of: script, githubActions: true) == [
                "::group::b", "[b] started (shell)", "##[error]in the summary", "::endgroup::",
                "::stop-commands::flowrun-T", "[b] failed in 0.0s: cannot run '##[error]x'", "::flowrun-T::",
                "::error::b failed: cannot run '##[error]x'",
                "failed tasks, with the last lines of their output:",
                "::stop-commands::flowrun-T", "[b] failed in 0.0s: cannot run '##[error]x'", "::flowrun-T::",
                "::stop-commands::flowrun-T", "[b] | ##[error]in the summary", "::flowrun-T::",
                "workflow ci failed in 0.0s: 1 failed", "",
            ])
    }
}
