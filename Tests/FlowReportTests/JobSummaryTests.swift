import FlowModel
import Foundation
import Testing

@testable import FlowReport

/// GitHub's job summary: what a person reads on the run's page after a failure.
@Suite struct JobSummaryTests {
    @Test func aFailedRunShowsItsResultItsCountsAndEachFailureWithItsLastLines() {
        let text = JobSummary.render(RunScript.failedRun().timeline())
        #expect(
            text == """
                ### ❌ flowrun: ci failed in 4.0s

                Run <code>20261125-030512-000</code> of <code>/srv/ci/flowrun.yaml</code>. \
                5 tasks: 2 succeeded, 1 failed, 1 up to date, 1 skipped.

                | Failed task | Reason | Duration | Last lines of output |
                |---|---|---|---|
                | <code>test</code> | exited with status 2 after 2 attempts | 3.0s | \
                <pre>flaky red<br>── attempt 2 ──<br>assertion failed: &lt;b&gt;&amp;&lt;/b&gt;</pre> |

                """)
    }

    /// As the run's last line: an allowed failure (continue_on_error) is not counted as failed,
    /// and the table says it lists allowed failures too.
    @Test func anAllowedFailureIsCountedAsAllowedNotFailed() {
        var script = RunScript([.init(task: "lint", needs: [], kind: "shell"), .init(task: "test", needs: [], kind: "shell")])
        var counts = FinalCounts()
        counts.succeeded = 1
        counts.failed = 1
        counts.allowed = 1
        script.at(0, .taskStarted(task: "lint", attempt: 1, kind: "shell"))
        script.at(0, .taskStarted(task: "test", attempt: 1, kind: "shell"))
        script.at(200, .taskFailed(task: "lint", attempts: 1, durationMilliseconds: 200, reason: "exited with status 1", exitCode: 1, allowed: true))
        script.at(1200, .taskSucceeded(task: "test", attempts: 1, durationMilliseconds: 1200))
        script.at(1200, .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 1200, counts: counts))
        let text = JobSummary.render(script.timeline())
        #expect(text.contains(" 2 tasks: 1 succeeded, 1 allowed failure.\n"), "\(text)")
        #expect(text.contains("\n| Failed or allowed-failure task | Reason | Duration | Last lines of output |\n"), "\(text)")
        #expect(text.contains("| <code>lint</code> | exited with status 1 (allowed: continue_on_error) | 0.2s |"), "\(text)")
    }

    /// A resumed run's summary said `1 skipped (1 done before)` where the console's last line
    /// said `1 done before`: both now say it the same way.
    @Test func aTaskDoneBeforeIsCountedAsTheConsoleSaysIt() {
        var script = RunScript([.init(task: "fetch", needs: [], kind: "shell"), .init(task: "build", needs: [], kind: "shell")])
        var counts = FinalCounts()
        counts.succeeded = 1
        counts.skipped = 1
        counts.doneBefore = 1
        script.at(0, .taskStarted(task: "build", attempt: 1, kind: "shell"))
        script.at(1200, .taskSucceeded(task: "build", attempts: 1, durationMilliseconds: 1200))
        script.at(1200, .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 1200, counts: counts))
        let text = JobSummary.render(script.timeline())
        #expect(text.hasSuffix("2 tasks: 1 succeeded, 1 done before.\n"), "\(text)")
    }

    @Test func aSucceededRunHasNoTable() {
        var script = RunScript([.init(task: "a", needs: [], kind: "shell")])
        var counts = FinalCounts()
        counts.succeeded = 1
        script.at(0, .taskStarted(task: "a", attempt: 1, kind: "shell"))
        script.at(1200, .taskSucceeded(task: "a", attempts: 1, durationMilliseconds: 1200))
        script.at(1200, .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 1200, counts: counts))
        let text = JobSummary.render(script.timeline())
        #expect(text.hasPrefix("### ✅ flowrun: ci succeeded in 1.2s\n"))
        #expect(text.hasSuffix("1 task: 1 succeeded.\n"))
        #expect(!text.contains("|"))
    }

    /// A task id, a reason and output lines with Markdown in them, rendered by cmark-gfm (the
    /// renderer of GitHub's job summaries): each row keeps its four cells and every character
    /// shows as written. `*`, `_`, `[`, `~`, `\\` and `$` were left as they were, so inside the
    /// cells' `<code>` and `<pre>` (raw HTML, whose text Markdown still reads) `*a*` became
    /// emphasis, `[x](y)` a link, `~~s~~` struck out, and `\\*` lost its backslash.
    @Test func markdownInNamesReasonsAndOutputShowsAsWritten() async throws {
        let name = "a|b*c*_d_[e](f)"
        let lines = ["*bold* and __strong__ ~~gone~~ [link](y) \\*kept\\* $x$ <b>raw</b> `tick`", "![img](y.png) & &amp;"]
        let html = try await Self.renderedFailure(of: name, lines: lines, reason: "exited: *not* [ok](z) _here_")
        for tag in ["<em>", "<strong>", "<del>", "<a ", "<img", "<b>"] { #expect(!html.contains(tag), "\(tag) in \(html)") }
        let row = try #require(html.components(separatedBy: "<tr>").last { $0.contains("<td>") })
        #expect(row.components(separatedBy: "<td>").count - 1 == 4, "\(row)")
        #expect(html.contains("<code>a|b*c*_d_[e](f)</code>"), "\(html)")
        #expect(html.contains("exited: *not* [ok](z) _here_"), "\(html)")
        #expect(
            html.contains(
                "*bold* and __strong__ ~~gone~~ [link](y) \\*kept\\* $x$ &lt;b&gt;raw&lt;/b&gt; `tick`<br>![img](y.png) &amp; &amp;amp;"
            ), "\(html)")
    }

    /// GitHub turns `:x:` into an emoji and a bare URL, `www.`, an address or `@name` into a
    /// link, in the HTML's text: a reason or an output line with them showed an emoji and links
    /// (a task id cannot hold a `:`, but can be `www.example.org`). Rendered by cmark-gfm, no
    /// link is made, no text node holds a shortcode, and the text shows as written once the
    /// invisible `<wbr>` are left out.
    @Test func emojiShortcodesAndBareURLsShowAsWritten() async throws {
        let name = "www.example.org"
        let lines = [":warning: see https://example.com/log?a=1 and www.example.org", "mail ops@example.com or @octocat :tada: 12:30"]
        let html = try await Self.renderedFailure(of: name, lines: lines, reason: "exited :x: http://ci.example.com/1")
        #expect(!html.contains("<a "), "\(html)")
        let textNodes = html.split(separator: "<").map { $0.split(separator: ">", maxSplits: 1).last.map(String.init) ?? "" }
        let shortcode = /:[a-z0-9_+-]+:/
        for text in textNodes { #expect(text.firstMatch(of: shortcode) == nil, "a shortcode in '\(text)'") }
        let shown = html.replacingOccurrences(of: "<wbr />", with: "").replacingOccurrences(of: "<wbr>", with: "")
        #expect(shown.contains("<code>www.example.org</code>"), "\(html)")
        #expect(shown.contains("exited :x: http://ci.example.com/1"), "\(html)")
        #expect(shown.contains(lines.joined(separator: "<br>")), "\(html)")
    }

    /// GitHub also makes `#123`, `GH-123` and `owner/repo#123` issue links, a commit's SHA (40
    /// or 7 hex digits, `user@SHA` too) a commit link and `@name` a mention, in each text node
    /// of the HTML: a task named `fix-#123` or a reason naming a SHA linked to whatever issue
    /// or commit of the repository had that number. Rendered by cmark-gfm, no text node holds
    /// one, and the text shows as written once the invisible `<wbr>` are left out.
    @Test func issueNumbersCommitSHAsAndMentionsShowAsWritten() async throws {
        let name = "fix-#123"
        let sha = "a5c3785ed8d6a35868bc169f07e40e889087fd2e"
        let lines = ["closes #12 and GH-34, see octo/repo#56", "reverts \(sha) (jlord@\(sha)), short a5c3785 @octocat"]
        let html = try await Self.renderedFailure(of: name, lines: lines, reason: "build of \(sha) failed, #7 (cc @ops)")
        let textNodes = html.split(separator: "<").map { $0.split(separator: ">", maxSplits: 1).last.map(String.init) ?? "" }
        let references = [/#[0-9]/, /(?i)GH-[0-9]/, /@[A-Za-z0-9]/, /(?:^|[^A-Za-z0-9_])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![A-Za-z0-9_])/]
        for text in textNodes {
            for reference in references { #expect(text.firstMatch(of: reference) == nil, "a reference GitHub links in '\(text)'") }
        }
        let shown = html.replacingOccurrences(of: "<wbr />", with: "").replacingOccurrences(of: "<wbr>", with: "")
        #expect(shown.contains("<code>fix-#123</code>"), "\(html)")
        #expect(shown.contains("build of \(sha) failed, #7 (cc @ops)"), "\(html)")
        #expect(shown.contains(lines.joined(separator: "<br>")), "\(html)")
        // A word of hex letters alone (`defaced`) or digits alone (a run id's date) is left
        // whole, as is a `-` before a digit elsewhere than in `GH-`.
        #expect(JobSummary.escaped("defaced 20261125-030512-000 step-2") == "defaced 20261125-030512-000 step-2")
    }

    /// A workflow `name: "\x07ci \x1b[31mred"` put its bell and escape sequence raw into the
    /// summary's heading (the JUnit report drops them, the output tails were cleaned already).
    @Test func controlCharactersInTheWorkflowsNameAreLeftOut() {
        var builder = TimelineBuilder(
            workflow: "\u{07}ci \u{1B}[31mred\u{1B}[0m\u{7F}", run: "20261125-030512-000", file: "/srv/ci/\u{1B}]0;x\u{07}flowrun.yaml",
            startedMilliseconds: RunScript.start, plan: [])
        builder.add(
            RunEvent(
                seq: 1, timeMilliseconds: RunScript.start,
                kind: .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 0, counts: FinalCounts())))
        let text = JobSummary.render(builder.timeline())
        #expect(text.hasPrefix("### ✅ flowrun: ci red succeeded in "), "\(text)")
        #expect(text.contains("of <code>/srv/ci/flowrun.yaml</code>."), "\(text)")
        #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(text)")
    }

    @Test func aCellCannotBreakTheTable() {
        #expect(JobSummary.escaped("a|b`c<d>&\ne") == "a&#124;b&#96;c&lt;d&gt;&amp; e")
    }

    /// GitHub's Markdown finds `|` and `*` as bytes: one with a combining mark after it (one
    /// Character with it) split the cell ('cannot open input 'x|\u{301}y'' ended at the `|`) and
    /// made emphasis, so it is escaped too, the mark kept after it.
    @Test func aMarkAfterAnEscapedCharacterDoesNotHideIt() {
        let escaped = JobSummary.escaped("x|\u{301}y *\u{301}b*\u{301} <\u{301}")
        #expect(!escaped.utf8.contains { $0 == UInt8(ascii: "|") || $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "<") }, "\(escaped)")
        #expect(Array(escaped.unicodeScalars) == Array("x&#124;\u{301}y &#42;\u{301}b&#42;\u{301} &lt;\u{301}".unicodeScalars))
    }

    /// 5,000 failures, each with 10 long lines (about 10 MB of rows): the summary stays under
    /// GitHub's 1 MiB and says how many it left out.
    @Test func staysUnderGitHubsLimitWhateverTheRun() {
        let tasks = (0..<5000).map { "task-\($0)" }
        var script = RunScript(tasks.map { .init(task: $0, needs: [], kind: "shell") })
        for (index, task) in tasks.enumerated() {
            let time = Int64(index)
            script.at(time, .taskStarted(task: task, attempt: 1, kind: "shell"))
            for line in 0..<10 { script.at(time, .taskOutput(task: task, stream: .stdout, line: "\(line) " + String(repeating: "x", count: 300))) }
            script.at(time + 1, .taskFailed(task: task, attempts: 1, durationMilliseconds: 1, reason: "exited with status 1", exitCode: 1))
        }
        let text = JobSummary.render(script.timeline())
        #expect(text.utf8.count < 1 << 20)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| <code>task-") }.count
        #expect(rows > 100)
        #expect(
            text.hasSuffix(
                "\n\(5000 - rows) more failed tasks left out: GitHub keeps a job summary under 1 MiB (<code>flowrun logs 20261125-030512-000 TASK</code> shows each).\n"
            ))
    }

    @Test func appendingKeepsWhatEarlierStepsWrote() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.path + "/summary.md"
        try ReportFile.write("# Build\nearlier step\n", to: path)
        try ReportFile.append("flowrun's part\n", to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "# Build\nearlier step\nflowrun's part\n")
    }

    /// An earlier command of the step that left its last line open (`printf '| 1 | 2 |'`), or
    /// ended with an HTML block (`</details>`, which runs on to the next blank line): flowrun's
    /// heading still starts a block of its own instead of being read as part of theirs.
    @Test func theSummaryStartsABlockOfItsOwnAfterWhatEarlierCommandsWrote() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let timeline = RunScript.failedRun().timeline()
        for (earlier, joined) in [
            ("| a | b |\n|---|---|\n| 1 | 2 |", "| 1 | 2 |\n\n### ❌ flowrun: ci"),
            ("<details><summary>log</summary>\n\nok\n</details>\n", "</details>\n\n### ❌ flowrun: ci"),
            ("earlier step\n\n", "earlier step\n\n### ❌ flowrun: ci"),
            ("", "### ❌ flowrun: ci"),
        ] {
            let path = folder.path + "/summary-\(earlier.utf8.count).md"
            if !earlier.isEmpty { try ReportFile.write(earlier, to: path) }
            try JobSummary.append(timeline, to: path)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasPrefix(earlier.isEmpty ? joined : earlier), "\(earlier)")
            #expect(text.contains(joined), "\(earlier)")
        }
    }

    /// GitHub's 1 MiB is for the whole step: what earlier commands wrote counts against it.
    @Test func staysUnderGitHubsLimitWithWhatEarlierCommandsWrote() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.path + "/summary.md"
        try ReportFile.write(String(repeating: "earlier line\n", count: 60_000), to: path)  // 780,000 bytes
        let tasks = (0..<2000).map { "task-\($0)" }
        var script = RunScript(tasks.map { .init(task: $0, needs: [], kind: "shell") })
        for (index, task) in tasks.enumerated() {
            let time = Int64(index)
            script.at(time, .taskStarted(task: task, attempt: 1, kind: "shell"))
            for line in 0..<10 { script.at(time, .taskOutput(task: task, stream: .stdout, line: "\(line) " + String(repeating: "x", count: 300))) }
            script.at(time + 1, .taskFailed(task: task, attempts: 1, durationMilliseconds: 1, reason: "exited with status 1", exitCode: 1))
        }
        try JobSummary.append(script.timeline(), to: path)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? Int.max
        #expect(size < 1 << 20)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("more failed tasks left out"))
    }

    @Test func aSummaryThatCannotBeWrittenIsAnError() {
        #expect(throws: WriteFailure.self) { try ReportFile.append("x", to: "/nonexistent-\(UUID().uuidString)/summary.md") }
    }

    /// The job summary of a run whose one task, `task`, printed `lines` and failed with `reason`,
    /// as cmark-gfm (the renderer of GitHub's job summaries) renders it to HTML.
    static func renderedFailure(of task: String, lines: [String], reason: String) async throws -> String {
        var script = RunScript([.init(task: task, needs: [], kind: "shell")])
        script.at(0, .taskStarted(task: task, attempt: 1, kind: "shell"))
        for line in lines { script.at(1, .taskOutput(task: task, stream: .stdout, line: line)) }
        script.at(2, .taskFailed(task: task, attempts: 1, durationMilliseconds: 2, reason: reason, exitCode: 1))
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let path = folder.path + "/summary.md"
        try ReportFile.write(JobSummary.render(script.timeline()), to: path)
        let rendered = try await Python.run(["render_gfm.py", path])
        #expect(rendered.status == 0, "\(rendered.output)")
        return rendered.output
    }
}
