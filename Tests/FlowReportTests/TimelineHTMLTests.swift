import FlowModel
import Foundation
import Testing

@testable import FlowReport

/// The HTML timeline: its data, its size, and (in headless Chromium) what it draws.
@Suite struct TimelineHTMLTests {
    func data(of page: String) throws -> [String: Any] {
        let start = try #require(page.range(of: "<script type=\"application/json\" id=\"run-data\">"))
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        return try #require(try JSONSerialization.jsonObject(with: Data(page[start.upperBound..<end.lowerBound].utf8)) as? [String: Any])
    }

    @Test func everyTaskHasARowWithItsResultAttemptsAndTail() throws {
        let page = TimelineHTML.render(RunScript.failedRun().timeline())
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(!page.contains("http://") && !page.contains("https://"), "a page that works offline loads nothing")
        let data = try data(of: page)
        #expect(data["result"] as? String == "failed" && data["run"] as? String == "20261125-030512-000")
        let tasks = try #require(data["tasks"] as? [[Any]])
        #expect(tasks.map { $0[0] as? String } == ["build", "test", "lint", "docs", "deploy"])
        #expect(tasks.map { $0[1] as? String } == ["succeeded", "failed", "succeeded", "up-to-date", "skipped"])
        #expect((tasks[1][11] as? [[Any]])?.map { $0[2] as? String } == ["retried", "failed"])
        #expect(tasks[1][13] as? String == "flaky red\n── attempt 2 ──\nassertion failed: <b>&</b>")
        #expect(data["critical"] as? [Int] == [0, 1])
    }

    @Test func outputCannotEndTheScriptEarly() throws {
        var script = RunScript([.init(task: "a", needs: [], kind: "shell")])
        script.at(0, .taskStarted(task: "a", attempt: 1, kind: "shell"))
        script.at(1, .taskOutput(task: "a", stream: .stdout, line: "</script><script>alert(1)</script>"))
        script.at(2, .taskFailed(task: "a", attempts: 1, durationMilliseconds: 2, reason: "exited with status 1", exitCode: 1))
        let page = TimelineHTML.render(script.timeline())
        #expect(page.components(separatedBy: "</script>").count == 3)
        let tasks = try #require(try data(of: page)["tasks"] as? [[Any]])
        #expect(tasks[0][13] as? String == "</script><script>alert(1)</script>")
    }

    /// 5,000 tasks that each print 20 lines of 200 bytes (2 MB of tails alone): the page stays
    /// under 5 MB, failures keep their lines first, and the rest say their lines were left out.
    @Test func aRunOf5000TasksStaysUnder5MB() throws {
        let tasks = (0..<5000).map { "task-\($0)" }
        var script = RunScript(tasks.enumerated().map { .init(task: $1, needs: $0 > 0 ? ["task-\($0 - 1)"] : [], kind: "shell") })
        for (index, task) in tasks.enumerated() {
            let time = Int64(index) * 10
            script.at(time, .taskReady(task: task))
            script.at(time, .taskStarted(task: task, attempt: 1, kind: "shell"))
            for line in 0..<20 { script.at(time + 1, .taskOutput(task: task, stream: .stdout, line: "\(line) " + String(repeating: "y", count: 200))) }
            if index == 4999 {
                script.at(time + 9, .taskFailed(task: task, attempts: 1, durationMilliseconds: 9, reason: "exited with status 1", exitCode: 1))
            } else {
                script.at(time + 9, .taskSucceeded(task: task, attempts: 1, durationMilliseconds: 9))
            }
        }
        let page = TimelineHTML.render(script.timeline())
        #expect(page.utf8.count < 5_000_000)
        let rows = try #require(try data(of: page)["tasks"] as? [[Any]])
        #expect(rows.count == 5000)
        #expect((rows[4999][13] as? String)?.hasPrefix("0 yyy") == true)
        #expect(rows.contains { $0[13] as? Bool == false })
    }

    /// What a person checks, in a real browser: a row per task, a bar per attempt, the failed
    /// task drawn red, the critical path marked, and those colours on the screen.
    @Test(.enabled(if: Chromium.isInstalled, "chromium is not installed: scripts/install-deps --tests installs it"))
    func chromiumDrawsTheBarsTheFailureAndTheCriticalPath() async throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let page = folder.path + "/timeline.html"
        try ReportFile.write(TimelineHTML.render(RunScript.failedRun().timeline()), to: page)
        let expected = folder.path + "/expected.json"
        try ReportFile.write(
            """
            {"rows": 5, "bars": 4, "failed": ["test"], "critical": ["build", "test"], "result": "failed",
             "colours": {"failed": "#cf222e", "succeeded": "#2da44e", "critical path": "#0550ae", "retried": "#ff8182"}}
            """, to: expected)
        let check = try await Python.run(["check_timeline.py", page, expected])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.hasPrefix("ok: 5 rows, 4 bars"))
    }
}

enum Chromium {
    static let isInstalled = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].contains {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}
