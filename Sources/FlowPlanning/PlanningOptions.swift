import FlowModel

/// What the command line adds to a workflow file when planning.
package struct PlanningOptions: Sendable {
    /// Tasks to run with everything they need; empty means every task.
    package var targets: [TaskID] = []
    /// `run --only`: exactly the targets, their needs outside the selection taken as done.
    package var onlyTargets = false
    /// `flowrun FILE TASK... -- ARGS...`: the ARGS, for the named tasks only (not their needs).
    package var taskArguments: [String] = []
    /// `--env NAME=VALUE`: overrides the workflow's env.
    package var environmentOverrides: [EnvironmentEntry] = []
    /// The process environment: the last place a `${NAME}` is looked up.
    package var processEnvironment: [String: String] = [:]
    /// `-j`: overrides the file's `concurrency`.
    package var concurrency: Int?
    /// The default global limit: the number of CPUs.
    package var processorCount = 1

    package init() {}
}

/// Problems with the command line's view of the workflow (exit status 2, like an invalid file).
package enum PlanningError: Error, Sendable, Equatable {
    case unknownTarget(String, suggestion: String?)
    /// Arguments after `--` with no task named, or a named task that runs no command.
    case argumentsWithoutCommand(task: TaskID?, kind: String?)
}
