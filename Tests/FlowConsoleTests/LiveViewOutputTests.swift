import FlowLoading
import FlowModel
import FlowPlanning
import Testing

@testable import FlowConsole

/// Output lines in the live view, as a person reads them on a terminal: one column of `|`
/// however long the ids, each task in a colour of its own, the task's own colours kept.
@Suite struct LiveViewOutputTests {
    func layout(_ yaml: String) throws -> RunLayout {
        let loaded = WorkflowLoader.decode(Array(yaml.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        let workflow = try #require(loaded.workflow)
        return RunLayout(try #require(try Planner.plan(workflow, options: PlanningOptions()).plan))
    }

    func rendered(_ lines: [(TaskID, OutputStream, String)], colour: Bool, layout: RunLayout = RunLayout()) -> String {
        var view = LiveView(style: Style(enabled: colour), layout: layout)
        view.record(RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "w", file: "f", tasks: 3, concurrency: 3)))
        for (task, _, _) in lines {
            view.record(RunEvent(seq: 2, timeMilliseconds: 0, kind: .taskStarted(task: task, attempt: 1, kind: "shell")))
        }
        _ = view.takeNotes()
        for (task, stream, line) in lines {
            view.record(RunEvent(seq: 3, timeMilliseconds: 0, kind: .taskOutput(task: task, stream: stream, line: line)))
        }
        return LiveView.render(view.takeNotes(), style: view.style, prefixes: view.prefixes)
    }

    @Test func prefixesArePaddedToTheWidestTaskOfTheRunFromTheFirstLine() throws {
        let layout = try layout(
            """
            version: 1
            tasks:
              db: {shell: "true"}
              compile-frontend: {shell: "true"}
            """)
        #expect(layout.prefixWidth == 16)
        // `compile-frontend` has printed nothing yet: the column is already as wide as it needs.
        #expect(
            rendered([("db", .stdout, "migrating"), ("db", .stderr, "slow")], colour: false, layout: layout)
                == "db               | migrating\ndb               ! slow\n")
    }

    @Test func withoutThePlanPrefixesArePaddedToTheWidestTaskStartedSoFar() {
        #expect(
            rendered([("db", .stdout, "up"), ("compile", .stdout, "ok"), ("db", .stdout, "")], colour: false)
                == "db      | up\ncompile | ok\ndb      |\n")
    }

    @Test func aVeryLongIdDoesNotPushEveryLineToTheRight() throws {
        let long = String(repeating: "x", count: 60)
        let layout = try layout("version: 1\ntasks:\n  a: {shell: \"true\"}\n  \(long): {shell: \"true\"}\n")
        #expect(layout.prefixWidth == RunLayout.widestPrefix)
        let text = rendered([("a", .stdout, "1"), (long, .stdout, "2")], colour: false, layout: layout)
        #expect(text == "a" + String(repeating: " ", count: RunLayout.widestPrefix - 1) + " | 1\n\(long) | 2\n")
    }

    @Test func eachTaskPrefixHasAColourOfItsOwnThatStaysTheSame() throws {
        let ids = (0..<10).map { "task\($0)" }
        let layout = try layout("version: 1\ntasks:\n" + ids.map { "  \($0): {shell: \"true\"}\n" }.joined())
        let text = rendered(ids.map { ($0, .stdout, "x") } + [("task0", .stderr, "again")], colour: true, layout: layout)
        let colours = text.split(separator: "\n").map { $0.prefix { $0 != "m" } }
        #expect(colours.count == 11)
        #expect(Set(colours.prefix(10)).count == 10, "ten tasks, ten colours: \(colours)")
        #expect(colours[10] == colours[0], "a task keeps its colour")
        #expect(!colours.contains("\u{1B}[31") && !colours.contains("\u{1B}[1;31"), "red means failure")
        #expect(text.hasPrefix("\u{1B}[36mtask0\u{1B}[0m \u{1B}[2m|\u{1B}[0m x\n"))
        // The same file, another run: the same colours.
        #expect(rendered([("task3", .stdout, "y")], colour: true, layout: layout).hasPrefix(String(colours[3]) + "m"))
    }

    @Test func aRunningTaskInTheLiveAreaHasTheColourOfItsOutput() {
        var view = LiveView(style: Style(enabled: true))
        view.record(RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "w", file: "f", tasks: 2, concurrency: 2)))
        view.record(RunEvent(seq: 2, timeMilliseconds: 0, kind: .taskStarted(task: "build", attempt: 1, kind: "shell")))
        view.record(RunEvent(seq: 3, timeMilliseconds: 0, kind: .taskStarted(task: "test", attempt: 1, kind: "shell")))
        view.record(RunEvent(seq: 4, timeMilliseconds: 0, kind: .taskOutput(task: "test", stream: .stdout, line: "x")))
        let output = LiveView.render(view.takeNotes(), style: view.style, prefixes: view.prefixes)
        let lines = view.liveLines(now: 1000, columns: 80, rows: 24)
        let colour = view.prefixes.colour(of: "test")
        #expect(output.contains("\u{1B}[\(colour)mtest \u{1B}[0m"))
        #expect(lines[1].hasPrefix("  \u{1B}[1;\(colour)mtest \u{1B}[0m"))
        #expect(!lines[0].contains("\u{1B}[1;\(colour)m"), "build has another colour")
    }

    @Test func withColourOffThereIsNoEscapeAtAll() {
        let text = rendered([("build", .stdout, "\u{1B}[31merror\u{1B}[0m: x")], colour: false)
        #expect(text == "build | error: x\n")
    }

    @Test func aTasksOwnColoursShowAndEndWithItsLine() {
        let text = rendered([("build", .stdout, "\u{1B}[31merror\u{1B}[2J: x")], colour: true)
        #expect(text.hasSuffix(" \u{1B}[31merror: x\u{1B}[0m\n"))
        #expect(!text.contains("\u{1B}[2J"))
    }
}
