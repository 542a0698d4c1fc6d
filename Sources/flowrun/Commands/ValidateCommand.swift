import ArgumentParser
import FlowModel
import FlowPlanning
import Foundation

/// `flowrun validate FILE...`
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check workflow files and print every problem, as FILE:LINE:COLUMN: error: MESSAGE.",
        discussion: "Exit status: 0 when every file is valid, 2 otherwise. Nothing is run, written or fetched."
    )

    @Argument(help: ArgumentHelp("The workflow files to check.", valueName: "FILE"), completion: .file(extensions: ["yaml", "yml"]))
    var files: [String] = []

    @OptionGroup var workflow: WorkflowOptions

    func run() throws {
        let files = try self.files.isEmpty ? [workflow.foundFile()] : self.files.map(workflow.resolved)
        var allValid = true
        for file in files {
            switch try WorkflowInput.plan(file, options: workflow.planningOptions()) {
            case .planned(let plan):
                print("\(file): ok (\(plan.tasks.count.counted("task")))")
            case .invalid:
                allValid = false
            }
        }
        if !allValid { throw ExitStatus.invalid }
    }
}
