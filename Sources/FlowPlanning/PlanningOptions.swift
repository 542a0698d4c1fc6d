import FlowModel

/// What the command line adds to a workflow file when planning.
public struct PlanningOptions: Sendable {
    /// Tasks to run with everything they need; empty means every task.
    public var targets: [TaskID] = []
    /// `--env NAME=VALUE`: overrides the workflow's env.
    public var environmentOverrides: [EnvironmentEntry] = []
    /// The process environment: the last place a `${NAME}` is looked up.
    public var processEnvironment: [String: String] = [:]
    /// `-j`: overrides the file's `concurrency`.
    public var concurrency: Int?
    /// The default global limit: the number of CPUs.
    public var processorCount = 1

    public init() {}
}

/// Problems with the command line's view of the workflow (exit status 2, like an invalid file).
public enum PlanningError: Error, Sendable, Equatable {
    case unknownTarget(String, suggestion: String?)
}
