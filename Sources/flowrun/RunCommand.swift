import ArgumentParser
import FlowConsole
import FlowPlanning
import Foundation

/// `flowrun [run] FILE [TASK...]`
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a workflow: every task, or the named tasks and everything they need.",
        discussion: "With no FILE, runs flowrun.yaml (or flowrun.yml) from the current folder."
    )

    @Argument(help: ArgumentHelp("The workflow file.", valueName: "FILE"))
    var file: String?

    @Argument(help: ArgumentHelp("Run only these tasks and what they need (default: every task).", valueName: "TASK"))
    var tasks: [String] = []

    @Flag(help: "Check the file and print the plan (order, waves, queues, resolved urls and paths); run nothing.")
    var dryRun = false

    @Option(name: [.customShort("j"), .customLong("concurrency")], help: ArgumentHelp("Most tasks executing at once (overrides the file).", valueName: "N"))
    var concurrency: Int?

    @OptionGroup var workflow: WorkflowOptions

    @Flag(help: "Do not use colour (also: the NO_COLOR variable).")
    var noColor = false

    func validate() throws {
        if let concurrency, concurrency < 1 { throw ValidationError("-j/--concurrency must be at least 1") }
    }

    func run() throws {
        let file = try file ?? WorkflowInput.defaultFile()
        let options = workflow.planningOptions(targets: tasks, concurrency: concurrency)
        guard case .planned(let plan) = try WorkflowInput.plan(file, options: options) else { throw ExitStatus.invalid }
        guard dryRun else {
            throw ValidationError("running workflows is not built yet (the engine comes next); use --dry-run to see the plan")
        }
        let environment = ProcessInfo.processInfo.environment
        let style = Style(enabled: Terminal.usesColor(1, environment: environment, noColorFlag: noColor))
        FileHandle.standardOutput.write(Data(PlanPrinter(style: style).render(plan).utf8))
    }
}
