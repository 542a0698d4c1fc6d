import FlowEvents
import FlowModel
import Foundation
import Testing

@testable import FlowConsole

/// How each output shows `workflow.cleanup`: the run was cancelled and its `when: always` tasks
/// run as cleanup.
@Suite struct CleanupLineTests {
    func cancelledRun(cleanup tasks: [TaskID]) -> EventScript {
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "w", file: "flowrun.yaml", tasks: 2, concurrency: 2))
        script.at(1, .taskStarted(task: "test", attempt: 1, kind: "shell"))
        script.at(5, .workflowCleanup(reason: "interrupted (SIGINT)", tasks: tasks))
        script.at(6, .taskCancelled(task: "test", reason: "interrupted (SIGINT)"))
        return script
    }

    func written(_ script: EventScript, by makeSink: (DescriptorWriter) -> any EventSink) throws -> String {
        let file = try OutputFile()
        defer { file.remove() }
        script.play(into: makeSink(try file.writer()))
        return try file.text()
    }

    @Test func thePlainLogSaysWhichCleanupTasksRun() throws {
        let text = try written(cancelledRun(cleanup: ["teardown", "logs"])) { PlainLog(writer: $0, githubActions: false) }
        #expect(text.contains("\ninterrupted (SIGINT): running cleanup tasks (when: always): teardown, logs; Ctrl-C again kills them\n"))
    }

    @Test func theLiveViewSaysItToo() throws {
        let text = try written(cancelledRun(cleanup: ["teardown"])) {
            LiveConsole(writer: $0, style: Style(enabled: false), size: { (80, 24) }, clock: { EventScript.base }, refreshInterval: .never)
        }
        #expect(text.contains("\ninterrupted (SIGINT): running cleanup tasks (when: always): teardown; Ctrl-C again kills them\n"))
    }

    @Test func aLongListIsCutAfterTenNames() {
        let tasks = (1...25).map { "t\($0)" }
        #expect(
            CleanupText.line(reason: "terminated (SIGTERM)", tasks: tasks)
                == "terminated (SIGTERM): running cleanup tasks (when: always): t1, t2, t3, t4, t5, t6, t7, t8, t9, t10 and 15 more; Ctrl-C again kills them"
        )
    }

    @Test func theEventStreamListsTheTasks() throws {
        let text = try written(cancelledRun(cleanup: ["teardown", "logs"])) { JSONLinesSink(writer: $0) }
        let line = try #require(text.split(separator: "\n").first { $0.contains("workflow.cleanup") })
        #expect(line.hasSuffix(#","event":"workflow.cleanup","reason":"interrupted (SIGINT)","tasks":["teardown","logs"]}"#))
    }
}
