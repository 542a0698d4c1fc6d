import FlowModel

/// Whether a plan holds secret values (`SecretName`), which must not be written to disk.
extension Plan {
    /// Whether a task took a secret value from `--env`, a dotenv file or the process
    /// environment: its fields are then shown with `***` (`PlannedTask.shown`), or the value is
    /// in its env (`secretOverrides`, or an included file's dotenv: `TaskSpec.secretEnvironmentNames`).
    package var tookSecrets: Bool {
        !secretOverrides.isEmpty || tasks.contains { $0.shown != nil } || takenAsDone.contains { $0.shown != nil }
            || workflow.tasks.contains { !$0.secretEnvironmentNames.isEmpty }
    }
}
