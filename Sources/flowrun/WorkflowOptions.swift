import ArgumentParser
import FlowConsole
import FlowModel
import FlowPlanning
import Foundation

/// Options that change how a workflow file is read and planned, shared by the commands.
struct WorkflowOptions: ParsableArguments {
    @Option(name: .customLong("env"), help: ArgumentHelp("Set a workflow variable, overriding the file's env (repeatable).", valueName: "NAME=VALUE"))
    var assignments: [EnvironmentAssignment] = []

    /// A name outside the file's rule is refused: `--env 'BASH_FUNC_ls%%=() { ...; }'` would
    /// replace `ls` in every bash a task starts.
    func validate() throws {
        for name in assignments.map(\.entry.name) where !EnvironmentEntry.isValidName(name) {
            throw ValidationError(
                "invalid environment variable name '\(VisibleText.escaped(name))' in --env: use letters, digits and _, not starting with a digit")
        }
    }

    func planningOptions(targets: [TaskID] = [], concurrency: Int? = nil) -> PlanningOptions {
        var options = PlanningOptions()
        options.targets = targets
        options.environmentOverrides = assignments.map(\.entry)
        options.processEnvironment = ProcessInfo.processInfo.environment
        options.concurrency = concurrency
        options.processorCount = ProcessInfo.processInfo.activeProcessorCount
        return options
    }
}
