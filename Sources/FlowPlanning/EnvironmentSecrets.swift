import FlowModel

/// The secret values of a run's environments, found once for the run: the plan's secret `--env`
/// and dotenv values by name (`Plan.secretOverrides`), and the process environment's values
/// whose names look secret (`SecretName.looksSecret`). A task's output lines and failure reason
/// are masked with those in its environment, and so are the paths `--dry-run` names.
package struct EnvironmentSecrets: Sendable {
    private let overrides: [String: String]
    private let process: [String: String]

    package init(secretOverrides: [String: String], processEnvironment: [String: String]) {
        overrides = secretOverrides
        process = processEnvironment.filter { SecretName.looksSecret($0.key) }
    }

    /// The secret values in `task`'s environment (`PlannedTask.environmentSecretValues`).
    package func values(of task: borrowing PlannedTask) -> [String] {
        task.environmentSecretValues(secretOverrides: overrides, processSecrets: process)
    }
}
