import ArgumentParser
import FlowConsole

/// `flowrun list [FILE] [--json]`
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the tasks of a workflow with their descriptions, needs and queue, in file order.",
        discussion: """
            --json prints an array with one object per task: id, description (null when none), \
            needs, queue (null when none), kind, when, priority and line. Exit status: 0, or 2 \
            for an invalid file.
            """
    )

    @Argument(help: ArgumentHelp("The workflow file.", valueName: "FILE"), completion: .file(extensions: ["yaml", "yml"]))
    var file: String?

    @Flag(help: "Print JSON for scripts instead of the table.")
    var json = false

    @OptionGroup var workflow: WorkflowOptions

    func run() throws {
        let file = try file.map(workflow.resolved) ?? workflow.foundFile()
        guard case .planned(let plan) = try WorkflowInput.plan(file, options: workflow.planningOptions()) else {
            throw ExitStatus.invalid
        }
        print(json ? TaskList.json(plan.workflow) : TaskList.text(plan.workflow), terminator: "")
    }
}
