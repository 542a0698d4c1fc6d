/// The condition on a task's needs under which it runs.
package enum When: String, CaseIterable, Sendable {
    /// Every need succeeded (the default).
    case success
    /// At least one need failed.
    case failure
    /// Every need finished, whatever its result.
    case always
}
