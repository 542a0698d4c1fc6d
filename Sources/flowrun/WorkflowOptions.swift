import ArgumentParser
import FlowModel
import FlowPlanning
import Foundation

/// Options that change how a workflow file is read and planned, shared by the commands.
struct WorkflowOptions: ParsableArguments {
    @Option(name: .customLong("env"), help: ArgumentHelp("Set a workflow variable, overriding the file's env (repeatable).", valueName: "NAME=VALUE"))
    var assignments: [EnvironmentAssignment] = []

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
