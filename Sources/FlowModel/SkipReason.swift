/// Reasons for `task.skipped` that views and counts treat apart from a skip for a failure.
package enum SkipReason {
    /// The task's inputs and outputs are as at its last success (`inputs:`/`outputs:`).
    package static let upToDate = "up-to-date"
    /// The task succeeded in the run `--resume` takes, and its fingerprint is unchanged since.
    package static let doneBefore = "done-before"
}
