import FlowModel
import Foundation
import FoundationXML
import Testing

@testable import FlowConsole

/// A `continue_on_error` task that fails is allowed, as a GitHub Actions `continue-on-error`
/// step is: every view says so, and none reports the run as failed because of it.
@Suite struct AllowedFailureTests {
    /// `lint` (continue_on_error) fails and `test` succeeds: the run succeeds.
    private func lintAllowedToFail() -> EventScript {
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 2, concurrency: 2))
        script.at(1, .taskStarted(task: "lint", attempt: 1, kind: "shell"))
        script.at(2, .taskStarted(task: "test", attempt: 1, kind: "shell"))
        script.at(3, .taskOutput(task: "lint", stream: .stderr, line: "src/app.py:3:80: E501 line too long"))
        script.at(
            201, .taskFailed(task: "lint", attempts: 1, durationMilliseconds: 200, reason: "exited with status 1", exitCode: 1, allowed: true))
        script.at(500, .taskSucceeded(task: "test", attempts: 1, durationMilliseconds: 498))
        var counts = FinalCounts()
        counts.succeeded = 1
        counts.failed = 1
        counts.allowed = 1
        script.at(501, .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 501, counts: counts))
        return script
    }

    private func plainLog(githubActions: Bool) throws -> [String] {
        let file = try OutputFile()
        defer { file.remove() }
        lintAllowedToFail().play(into: PlainLog(writer: try file.writer(), githubActions: githubActions))
        return try file.text().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func thePlainLogMarksItAllowedAndDoesNotCountItAsFailed() throws {
        let lines = try plainLog(githubActions: false)
        #expect(lines.contains("[lint] allowed failure in 0.2s: exited with status 1 (continue_on_error)"))
        #expect(!lines.contains { $0.hasPrefix("[lint] failed") })
        #expect(lines.dropLast().last == "workflow ci succeeded in 0.5s: 1 succeeded, 1 allowed failure")
    }

    /// As issue 14 says: the last line says `N allowed failure(s)`, never `failed`, whatever
    /// else failed beside it.
    @Test func theLastLineNeverCountsAnAllowedFailureAsFailed() {
        var counts = FinalCounts()
        counts.succeeded = 1
        counts.failed = 2
        counts.allowed = 2
        #expect(SummaryText.counts(counts) == "1 succeeded, 2 allowed failures")
        counts.failed = 3
        counts.skipped = 1
        #expect(SummaryText.counts(counts) == "1 succeeded, 1 failed, 2 allowed failures, 1 skipped")
        counts.allowed = 1
        counts.failed = 2
        #expect(SummaryText.counts(counts) == "1 succeeded, 1 failed, 1 allowed failure, 1 skipped")
    }

    /// The end-of-log section names an allowed failure as allowed, apart from the failures.
    @Test func theEndOfTheLogListsAnAllowedFailureUnderItsOwnHeading() throws {
        let lines = try plainLog(githubActions: false)
        #expect(!lines.contains("failed tasks, with the last lines of their output:"))
        let heading = try #require(lines.firstIndex(of: "allowed failures (continue_on_error), with the last lines of their output:"))
        #expect(
            Array(lines[heading...].prefix(3)) == [
                "allowed failures (continue_on_error), with the last lines of their output:",
                "[lint] allowed failure in 0.2s: exited with status 1 (continue_on_error)",
                "[lint] ! src/app.py:3:80: E501 line too long",
            ])
    }

    @Test func aRunWithBothKindsListsEachUnderItsHeading() throws {
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 2, concurrency: 2))
        script.at(1, .taskStarted(task: "lint", attempt: 1, kind: "shell"))
        script.at(2, .taskStarted(task: "test", attempt: 1, kind: "shell"))
        script.at(3, .taskOutput(task: "lint", stream: .stderr, line: "E501"))
        script.at(4, .taskOutput(task: "test", stream: .stdout, line: "1 test failed"))
        script.at(
            201, .taskFailed(task: "lint", attempts: 1, durationMilliseconds: 200, reason: "exited with status 1", exitCode: 1, allowed: true))
        script.at(500, .taskFailed(task: "test", attempts: 1, durationMilliseconds: 498, reason: "exited with status 2", exitCode: 2))
        var counts = FinalCounts()
        counts.failed = 2
        counts.allowed = 1
        script.at(501, .workflowFinished(workflow: "ci", status: .failed, durationMilliseconds: 501, counts: counts))
        let file = try OutputFile()
        defer { file.remove() }
        script.play(into: PlainLog(writer: try file.writer(), githubActions: false))
        let lines = try file.text().split(separator: "\n").map(String.init)
        let failed = try #require(lines.firstIndex(of: "failed tasks, with the last lines of their output:"))
        #expect(
            Array(lines[failed...]) == [
                "failed tasks, with the last lines of their output:",
                "[test] failed in 0.5s: exited with status 2",
                "[test] | 1 test failed",
                "allowed failures (continue_on_error), with the last lines of their output:",
                "[lint] allowed failure in 0.2s: exited with status 1 (continue_on_error)",
                "[lint] ! E501",
                "workflow ci failed in 0.5s: 1 failed, 1 allowed failure",
            ])
    }

    @Test func gitHubGetsAWarningAnnotationAndNoError() throws {
        let lines = try plainLog(githubActions: true)
        #expect(lines.contains("::warning::lint failed (allowed by continue_on_error): exited with status 1"))
        #expect(!lines.contains { $0.hasPrefix("::error") })
    }

    @Test func theLiveViewShowsADistinctMarkAndCount() throws {
        var view = LiveView(style: Style(enabled: false))
        for event in lintAllowedToFail().events.dropLast(2) { view.record(event) }
        #expect(
            LiveView.render(view.takeNotes(), style: view.style).contains(
                "⚠ lint allowed failure: exited with status 1 (continue_on_error)\n"))
        let counter = view.liveLines(now: EventScript.base + 300, columns: 80, rows: 24).last ?? ""
        #expect(counter.hasPrefix("1/2 done, 1 running, 1 allowed"))
        #expect(!counter.contains("failed"))

        let file = try OutputFile()
        defer { file.remove() }
        let console = LiveConsole(
            writer: try file.writer(), style: Style(enabled: false), size: { (80, 24) },
            clock: { EventScript.base + 501 }, refreshInterval: .never)
        lintAllowedToFail().play(into: console)
        let summary = try file.text()
        #expect(summary.contains("lint  allowed        0.2s         1\n"))
        #expect(summary.contains("lint allowed failure: exited with status 1\n"))
        #expect(summary.hasSuffix("workflow ci succeeded in 0.5s: 1 succeeded, 1 allowed failure\n"))
    }

    @Test func theEventSaysAllowedAndTheCountsSayHowMany() throws {
        let file = try OutputFile()
        defer { file.remove() }
        lintAllowedToFail().play(into: JSONLinesSink(writer: try file.writer()))
        let events = try file.text().split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let failed = try #require(events.first { $0["event"] as? String == "task.failed" })
        #expect(failed["allowed"] as? Bool == true)
        let counts = try #require(events.last?["counts"] as? [String: Int])
        #expect(counts == ["succeeded": 1, "failed": 1, "allowed": 1, "cancelled": 0, "skipped": 0, "up_to_date": 0, "done_before": 0])
    }

    /// Jenkins turns a build red (or yellow) for any `<failure>`: an allowed failure passes,
    /// and its reason and output stay readable in the test case's standard output and error.
    @Test func jUnitHasNoFailureAndKeepsTheMessageInSystemOutAndErr() throws {
        let file = try OutputFile()
        defer { file.remove() }
        let report = try JUnitReport(path: file.path)
        lintAllowedToFail().play(into: report)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: file.path), options: [])
        let suite = try #require(document.rootElement()?.elements(forName: "testsuite").first)
        #expect(suite.attribute(forName: "failures")?.stringValue == "0")
        #expect(suite.attribute(forName: "errors")?.stringValue == "0")
        let lint = try #require(suite.elements(forName: "testcase").first { $0.attribute(forName: "name")?.stringValue == "lint" })
        #expect(lint.elements(forName: "failure").isEmpty && lint.elements(forName: "error").isEmpty)
        #expect(
            lint.elements(forName: "system-out").first?.stringValue
                == "allowed failure (continue_on_error): exited with status 1\nsrc/app.py:3:80: E501 line too long\n")
        #expect(lint.elements(forName: "system-err").first?.stringValue == "allowed failure (continue_on_error): exited with status 1\n")
    }
}
