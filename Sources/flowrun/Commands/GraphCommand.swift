import ArgumentParser
import FlowConsole
import FlowPlanning

extension GraphFormatter.Format: ExpressibleByArgument {}

/// `flowrun graph FILE [--format text|dot|mermaid]`
struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print the task graph as text, Graphviz dot or Mermaid.",
        discussion: "Edges run from a task to the tasks that need it. Pipe dot output to `dot -Tsvg` to draw it."
    )

    @Argument(help: ArgumentHelp("The workflow file.", valueName: "FILE"), completion: WorkflowCompletion.fileOrTask)
    var file: String?

    @Argument(help: ArgumentHelp("Only these tasks and what they need (default: every task).", valueName: "TASK"), completion: WorkflowCompletion.task)
    var tasks: [String] = []

    @Option(help: "Output format: text, dot or mermaid.")
    var format: GraphFormatter.Format = .text

    @OptionGroup var workflow: WorkflowOptions

    func run() throws {
        let (file, tasks) = try workflow.locate(file: file, tasks: tasks)
        guard case .planned(let plan) = try WorkflowInput.plan(file, options: workflow.planningOptions(targets: tasks)) else {
            throw ExitStatus.invalid
        }
        print(GraphFormatter.render(plan, as: format), terminator: "")
    }
}
