import FlowModel
import FlowPlanning

/// Each task's command as `-v/--verbose` echoes it when the task starts, as go-task's
/// `--verbose` prints `task: [NAME] COMMAND`: the action resolved, with the secret values it
/// took shown as `***`, as `--dry-run` shows it (`PlannedTask.shown`).
///
/// A script is echoed line by line (`$ make all`), then the words after `--` it gets as
/// `"$@"` (`args: ...`); an argv list as one line, those words at its end; download, decompress
/// and combine as `download URL -> PATH`. A group runs nothing and has no line. Text from the
/// file passes through `ConsoleText`, so that no escape sequence in it reaches the console.
package struct TaskCommands: Sendable {
    private let tasks: [PlannedTask]
    private let indexes: [TaskID: Int]

    package init(_ plan: Plan) {
        tasks = plan.tasks
        var indexes: [TaskID: Int] = [:]
        for (index, task) in plan.tasks.enumerated() { indexes[task.id] = index }
        self.indexes = indexes
    }

    /// The lines of `task`'s command; none for a task not in the plan.
    package func lines(of task: TaskID) -> [String] {
        indexes[task].map { Self.lines(of: tasks[$0]) } ?? []
    }

    package static func lines(of task: PlannedTask) -> [String] {
        let lines: [String]
        switch task.shown?.action ?? task.action {
        case .group:
            lines = []
        case .shell(.script(let script)):
            lines =
                script.split(separator: "\n").map { "$ \($0)" }
                + (task.arguments.isEmpty ? [] : ["args: " + task.arguments.map(PlanPrinter.quoted).joined(separator: " ")])
        case .shell(.argv(let argv)):
            lines = ["$ " + (argv + task.arguments).map(PlanPrinter.quoted).joined(separator: " ")]
        case .download(let download):
            lines = ["download \(download.url.value) -> \(download.to.value)"]
        case .decompress(let decompress):
            lines = ["decompress \(decompress.from.value) -> \(decompress.to.value)"]
        case .combine(let combine):
            lines = ["combine \(combine.inputs.map(\.value).joined(separator: " ")) -> \(combine.to.value)"]
        }
        return lines.map { ConsoleText.sanitized($0) }
    }
}
