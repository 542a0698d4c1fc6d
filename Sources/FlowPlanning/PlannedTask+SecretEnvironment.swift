import FlowModel

/// The secret values in a task's environment at run time, by the rule `--dry-run` masks its env
/// entries with: a task's output lines are masked with them (FlowActions' `SecretMask`), as
/// GitHub Actions masks every secret in every log line, whoever printed it.
extension PlannedTask {
    /// Whether the env entry's value is secret: an `--env` or root dotenv one (`secretOverrides`),
    /// or an included file's dotenv value that the task's env holds (`secretEnvironmentNames`).
    package func isSecret(_ entry: EnvironmentEntry, secretOverrides: [String: String]) -> Bool {
        if !secretOverrides.isEmpty, secretOverrides[entry.name] == entry.value { return true }
        return spec.secretEnvironmentNames.contains(entry.name) && spec.env.last { $0.name == entry.name }?.value == entry.value
    }

    /// The secret values of the task's env entries, then those of `processSecrets` (the process
    /// environment's values whose names look secret) that its env leaves in place.
    package func environmentSecretValues(secretOverrides: [String: String], processSecrets: [String: String]) -> [String] {
        var values = environment.filter { isSecret($0, secretOverrides: secretOverrides) }.map(\.value)
        for (name, value) in processSecrets where !environment.contains(where: { $0.name == name }) { values.append(value) }
        return values
    }
}
