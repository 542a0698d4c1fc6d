import FlowModel
import FlowPlanning
import Foundation

/// The secret values a task's fields took, and those of its environment, so that its failure
/// reasons and output lines show them as `***`, as `--dry-run` shows the fields: wherever they
/// appear, also in a URL a redirect led to (a token in a query is often carried along), or in
/// an entry or a folder named under a path.
///
/// The fields' values are found by setting each field beside its shown form
/// (`PlannedTask.secretValues`). Every output line and every failure reason of a task is masked
/// by one mask, made in `ActionRunner` (`AttemptEvents.masking`, `AttemptResult.masked`);
/// nothing else masks a failure. `--dry-run` masks the paths it names with the same mask.
package struct SecretMask: Sendable {
    /// The values, longest first (so that one holding another is masked whole).
    package let secrets: [String]

    /// Each field as the task uses it, then as shown.
    init(_ fields: [(String, String)]) {
        secrets = PlannedTask.secretValues(in: fields)
    }

    /// The fewest characters a secret of the task's environment has to mask its output lines: a
    /// shorter one (`1`, `on`) would mask every digit or word holding it, and hide little.
    static let minimumOutputLength = 4

    /// The values `task`'s output lines and failure reasons are masked with: those its fields
    /// took (any length) and the secret values in its environment
    /// (`PlannedTask.environmentSecretValues`) of `minimumOutputLength` characters or more,
    /// whoever prints them. `task` borrowed: an initializer's arguments are its own otherwise,
    /// and the caller copied the whole task (every field retained, then released) at every attempt.
    package init(outputOf task: borrowing PlannedTask, environmentSecrets: [String]) {
        let fromEnvironment = environmentSecrets.filter { $0.count >= Self.minimumOutputLength }
        secrets = fromEnvironment.isEmpty ? task.secretValues : SecretName.ordered(task.secretValues + fromEnvironment)
    }

    /// `text` with each value as `***`: `secrets` are ordered already, so not again for each
    /// line of output (`AttemptEvents.masking`).
    package func callAsFunction(_ text: String) -> String {
        SecretName.masked(text, ordered: secrets)
    }
}
