import FlowConsole
import FlowModel
import Foundation
import Testing

@Suite struct PlainLogTests {
    private func output(of script: EventScript, githubActions: Bool = false) throws -> String {
        let file = try OutputFile()
        defer { file.remove() }
        script.play(into: PlainLog(writer: try file.writer(), githubActions: githubActions))
        return try file.text()
    }

    @Test func writesOneLinePerEventWithTaskPrefixes() throws {
        #expect(
            try output(of: sampleRun()) == """
                workflow upgrade: 4 tasks, concurrency 2
                [fetch] started (shell)
                [build] started (shell)
                [fetch] | downloading index
                [build] ! warning: slow
                [build] |
                [fetch] retrying in 1.2s: exited with status 1 (attempt 1 failed)
                [fetch] started (shell, attempt 2)
                [fetch] succeeded in 7.4s after 2 attempts
                [build] failed in 8.0s: exited with status 2
                [test] skipped: needs 'build', which did not succeed
                queue suspended
                queue resumed
                [deploy] cancelled: the run failed (fail_fast)
                failed tasks, with the last lines of their output:
                [build] failed in 8.0s: exited with status 2
                [build] ! warning: slow
                [build] |
                workflow upgrade failed in 8.0s: 1 succeeded, 1 failed, 1 cancelled, 1 skipped

                """)
    }

    /// A failure's tail holds the lines of its last attempt only, and none for a task that
    /// printed nothing, whatever other tasks printed.
    @Test func aFailuresTailHoldsItsLastAttemptsLinesOnly() throws {
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "w", file: "flowrun.yaml", tasks: 3, concurrency: 2))
        script.at(1, .taskStarted(task: "flaky", attempt: 1, kind: "shell"))
        script.at(2, .taskStarted(task: "quiet", attempt: 1, kind: "shell"))
        script.at(3, .taskOutput(task: "flaky", stream: .stdout, line: "first try"))
        script.at(4, .taskFailed(task: "quiet", attempts: 1, durationMilliseconds: 2, reason: "exited with status 3", exitCode: 3))
        script.at(5, .taskRetrying(task: "flaky", attempt: 1, delayMilliseconds: 0, reason: "exited with status 1"))
        script.at(6, .taskStarted(task: "flaky", attempt: 2, kind: "shell"))
        script.at(7, .taskStarted(task: "loud", attempt: 1, kind: "shell"))
        script.at(8, .taskOutput(task: "loud", stream: .stderr, line: "noise"))
        script.at(9, .taskSucceeded(task: "loud", attempts: 1, durationMilliseconds: 1))
        script.at(10, .taskFailed(task: "flaky", attempts: 2, durationMilliseconds: 9, reason: "exited with status 1", exitCode: 1))
        var counts = FinalCounts()
        counts.succeeded = 1
        counts.failed = 2
        script.at(11, .workflowFinished(workflow: "w", status: .failed, durationMilliseconds: 11, counts: counts))
        let text = try output(of: script)
        let section = try #require(text.components(separatedBy: "failed tasks, with the last lines of their output:\n").last)
        let lines = section.split(separator: "\n").map(String.init)
        let failures = script.events.filter { if case .taskFailed = $0.kind { true } else { false } }.compactMap(PlainLog.line(for:))
        // Each failure's own line, then (here) no lines of output; then the run's last line.
        #expect(lines.count == 3)
        #expect(Array(lines.prefix(2)) == failures)
        #expect(!section.contains("first try") && !section.contains("noise"))
    }

    @Test func foldsEachTaskUnderGitHubActionsAndAnnotatesFailures() throws {
        #expect(
            try output(of: sampleRun(), githubActions: true) == """
                workflow upgrade: 4 tasks, concurrency 2
                ::group::fetch
                [fetch] started (shell)
                downloading index
                [fetch] retrying in 1.2s: exited with status 1 (attempt 1 failed)
                [fetch] started (shell, attempt 2)
                ::endgroup::
                [fetch] succeeded in 7.4s after 2 attempts
                ::group::build
                [build] started (shell)
                warning: slow

                ::endgroup::
                [build] failed in 8.0s: exited with status 2
                ::error::build failed: exited with status 2
                [test] skipped: needs 'build', which did not succeed
                queue suspended
                queue resumed
                [deploy] cancelled: the run failed (fail_fast)
                failed tasks, with the last lines of their output:
                [build] failed in 8.0s: exited with status 2
                [build] ! warning: slow
                [build] |
                workflow upgrade failed in 8.0s: 1 succeeded, 1 failed, 1 cancelled, 1 skipped

                """)
    }

    @Test func neverWritesAnEscapeCharacter() throws {
        var script = EventScript()
        script.at(0, .taskStarted(task: "t", attempt: 1, kind: "shell"))
        script.at(1, .taskOutput(task: "t", stream: .stdout, line: "\u{1B}]0;title\u{07}\u{1B}[2J\u{9B}1Aplain\u{1B}c"))
        script.at(2, .taskFailed(task: "t", attempts: 1, durationMilliseconds: 2, reason: "bad\u{1B}[0m news\nsecond line", exitCode: 1))
        let text = try output(of: script)
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B || $0.value == 0x07 })
        #expect(text == "[t] started (shell)\n[t] | plain\n[t] failed in 0.0s: bad news second line\n")
    }

    /// CI logs stay short: progress is for the live view and JSON Lines.
    @Test func showsNoProgress() throws {
        var script = EventScript()
        script.at(0, .taskStarted(task: "a", attempt: 1, kind: "download"))
        for (time, done) in [(0, 1), (100, 2), (6000, 3), (12000, 4)] as [(Int64, Int64)] {
            script.at(time, .taskProgress(task: "a", done: done, total: 4, unit: .bytes))
        }
        script.at(12001, .taskSucceeded(task: "a", attempts: 1, durationMilliseconds: 12001))
        #expect(try output(of: script) == "[a] started (download)\n[a] succeeded in 12.0s\n")
    }

    @Test(arguments: [
        ("100% done", "100%25 done"),
        ("line one\nline two", "line one%0Aline two"),
        ("dos\r\nline", "dos%0Aline"),
        ("a::b, c", "a::b, c"),
    ])
    func escapesGitHubAnnotationMessages(reason: String, expected: String) throws {
        var script = EventScript()
        script.at(0, .taskFailed(task: "t", attempts: 1, durationMilliseconds: 0, reason: reason, exitCode: nil))
        let lines = try output(of: script, githubActions: true).split(separator: "\n")
        #expect(lines.last == "::error::t failed: \(expected)")
    }

    /// The contract's words: a failure is an `::error::` annotation, an allowed failure
    /// (`continue_on_error`) a `::warning::` and no error; the task is named in the message.
    @Test(arguments: [false, true])
    func annotatesAFailureWithTheBareFormsTheContractNames(allowed: Bool) throws {
        var script = EventScript()
        script.at(0, .taskStarted(task: "b", attempt: 1, kind: "shell"))
        script.at(1, .taskFailed(task: "b", attempts: 1, durationMilliseconds: 1, reason: "exited with status 3", exitCode: 3, allowed: allowed))
        let text = try output(of: script, githubActions: true)
        if allowed {
            #expect(text.contains("::warning::b failed (allowed by continue_on_error): exited with status 3\n"))
            #expect(!text.contains("::error"))
        } else {
            #expect(text.contains("::error::b failed: exited with status 3\n"))
            #expect(!text.contains("::warning"))
        }
    }

    /// Two tasks, each printing several times what a group holds in memory, their lines
    /// interleaved: each group comes out once, whole, in order, and the groups never mix.
    private func twoLongGroups() -> (script: EventScript, perTask: Int) {
        var script = EventScript()
        let perTask = 20_000  // about 2 MB each: 30 times the buffer
        script.at(0, .taskStarted(task: "a", attempt: 1, kind: "shell"))
        script.at(0, .taskStarted(task: "b", attempt: 1, kind: "shell"))
        for index in 0..<perTask {
            for task in ["a", "b"] {
                script.at(1, .taskOutput(task: task, stream: .stdout, line: "\(task) line \(index) " + String(repeating: "x", count: 80)))
            }
        }
        script.at(2, .taskSucceeded(task: "a", attempts: 1, durationMilliseconds: 5))
        script.at(2, .taskSucceeded(task: "b", attempts: 1, durationMilliseconds: 5))
        return (script, perTask)
    }

    @Test func holdsAGroupLargerThanItsBufferWholeAndInOrder() throws {
        let (script, perTask) = twoLongGroups()
        let lines = try output(of: script, githubActions: true).split(separator: "\n").map(String.init)
        // Compared in parts, so that a failure names the difference rather than 80,000 lines.
        #expect(
            lines.filter { !$0.hasPrefix("a line ") && !$0.hasPrefix("b line ") } == [
                "::group::a", "[a] started (shell)", "::endgroup::", "[a] succeeded in 0.0s",
                "::group::b", "[b] started (shell)", "::endgroup::", "[b] succeeded in 0.0s",
            ])
        let body = (0..<perTask).map { "\($0) " + String(repeating: "x", count: 80) }
        let a = lines.firstIndex(of: "[a] started (shell)")! + 1
        let b = lines.firstIndex(of: "[b] started (shell)")! + 1
        #expect(Array(lines[a..<(a + perTask)]) == body.map { "a line \($0)" })
        #expect(Array(lines[b..<(b + perTask)]) == body.map { "b line \($0)" })
    }

    @Test func saysSoAndLosesNothingWhenTheSpillFileCannotBeMade() throws {
        let (script, perTask) = twoLongGroups()
        let file = try OutputFile()
        defer { file.remove() }
        script.play(into: PlainLog(writer: try file.writer(), githubActions: true, temporaryFolder: "/nonexistent/flowrun-test"))
        let lines = try file.text().split(separator: "\n")
        #expect(
            lines.filter {
                $0.hasPrefix(
                    "::error::flowrun: cannot hold the output of task 'a' in a temporary file in /nonexistent/flowrun-test: No such file or directory")
            }.count == 1)
        #expect(lines.contains("::group::a (continued)"))
        for task in ["a", "b"] {
            let output = lines.filter { $0.hasPrefix("\(task) line ") }.map { $0.split(separator: " ")[2] }
            #expect(output.map { Int($0) } == Array(0..<perTask), "task \(task)")
        }
        var open = false
        for line in lines where line.hasPrefix("::group::") || line == "::endgroup::" {
            #expect(open != line.hasPrefix("::group::"), "groups never nest or interleave")
            open = line.hasPrefix("::group::")
        }
    }
}
