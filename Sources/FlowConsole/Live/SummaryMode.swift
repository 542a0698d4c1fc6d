/// `--summary auto|all`: how many rows the live view's end summary has.
package enum SummaryMode: String, Sendable, CaseIterable {
    /// A row per task up to `LiveView.compactSummaryAbove` tasks; above, the failures and the
    /// ten slowest.
    case auto
    /// A row per task, however many.
    case all
}
