import FlowLoading
import FlowModel
import FlowPlanning
import Foundation
import Testing

@testable import FlowConsole

/// `-v/--verbose` in the consoles: each task's command as it starts (secrets as `***`), and a
/// line for each task kept, as go-task's `--verbose` prints them.
@Suite struct VerboseConsoleTests {
    static let workflow = """
        version: 1
        tasks:
          build: {shell: "make all\\nmake check", description: two lines}
          fetch:
            download: {url: 'https://example.com/${API_TOKEN}/app.tar.gz', to: out/app.tar.gz}
          lint: {shell: [swift, format, lint, 'a b.swift']}
          all: {needs: [build, fetch, lint]}
        """

    /// The workflow planned with `--env API_TOKEN=hush-123`.
    func plan() throws -> Plan {
        var options = PlanningOptions()
        options.environmentOverrides = [EnvironmentEntry(name: "API_TOKEN", value: "hush-123")]
        let loaded = WorkflowLoader.decode(Array(Self.workflow.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        let workflow = try #require(loaded.workflow)
        return try #require(try Planner.plan(workflow, options: options).plan)
    }

    @Test func eachActionIsEchoedAsItIsResolvedWithItsSecretsMasked() throws {
        let commands = TaskCommands(try plan())
        #expect(commands.lines(of: "build") == ["$ make all", "$ make check"])
        #expect(commands.lines(of: "fetch") == ["download https://example.com/***/app.tar.gz -> /work/out/app.tar.gz"])
        #expect(commands.lines(of: "lint") == ["$ swift format lint 'a b.swift'"])
        #expect(commands.lines(of: "all") == [])
    }

    func run(_ script: (inout EventScript) -> Void) -> EventScript {
        var events = EventScript()
        events.at(0, .workflowStarted(workflow: "w", file: "w.yaml", tasks: 4, concurrency: 2))
        script(&events)
        var counts = FinalCounts()
        counts.succeeded = 2
        counts.skipped = 2
        counts.upToDate = 2
        events.at(9, .workflowFinished(workflow: "w", status: .succeeded, durationMilliseconds: 9, counts: counts))
        return events
    }

    /// Two up to date, `build` retried once: its command is echoed once, at its first start.
    func verboseRun() -> EventScript {
        run { events in
            events.at(1, .taskSkipped(task: "fetch", reason: SkipReason.upToDate))
            events.at(1, .taskSkipped(task: "lint", reason: SkipReason.upToDate))
            events.at(2, .taskStarted(task: "build", attempt: 1, kind: "shell"))
            events.at(3, .taskRetrying(task: "build", attempt: 1, delayMilliseconds: 1, reason: "exited with status 1"))
            events.at(4, .taskStarted(task: "build", attempt: 2, kind: "shell"))
            events.at(5, .taskSucceeded(task: "build", attempts: 2, durationMilliseconds: 3))
            events.at(6, .taskSucceeded(task: "all", attempts: 1, durationMilliseconds: 0))
        }
    }

    func plainLog(githubActions: Bool, commands: TaskCommands?) throws -> String {
        let file = try OutputFile()
        defer { file.remove() }
        verboseRun().play(into: PlainLog(writer: try file.writer(), githubActions: githubActions, commands: commands))
        return try file.text()
    }

    @Test func thePlainLogEchoesTheCommandUnderTheFirstStartAndNamesTheTasksKept() throws {
        #expect(
            try plainLog(githubActions: false, commands: TaskCommands(try plan())) == """
                workflow w: 4 tasks, concurrency 2
                [fetch] up to date
                [lint] up to date
                [build] started (shell)
                [build] $ make all
                [build] $ make check
                [build] retrying in 0.0s: exited with status 1 (attempt 1 failed)
                [build] started (shell, attempt 2)
                [build] succeeded in 0.0s after 2 attempts
                [all] succeeded in 0.0s
                2 tasks up to date
                workflow w succeeded in 0.0s: 2 succeeded, 2 up to date

                """)
        let quiet = try plainLog(githubActions: false, commands: nil)
        #expect(!quiet.contains("$ make") && !quiet.contains("[lint] up to date"), "\(quiet)")
    }

    /// Under GitHub Actions the command is in the task's fold, as a step's `Run` header is.
    @Test func underGitHubActionsTheCommandIsInTheFold() throws {
        let log = try plainLog(githubActions: true, commands: TaskCommands(try plan()))
        #expect(log.contains("::group::build\n[build] started (shell)\n[build] $ make all\n[build] $ make check\n"), "\(log)")
    }

    @Test func theLiveViewShowsTheCommandAndTheTasksKept() throws {
        var view = LiveView(style: Style(enabled: false), commands: TaskCommands(try plan()))
        for event in verboseRun().events.prefix(4) { view.record(event) }
        let text = LiveView.render(view.takeNotes(), style: view.style, prefixes: view.prefixes)
        #expect(text.contains("· fetch up to date\n· lint up to date\n"), "\(text)")
        #expect(text.contains("build $ make all\n") && text.contains("build $ make check\n"), "\(text)")
    }
}
