import NIOConcurrencyHelpers

/// How many attempts of a run's in-process actions (download, decompress, combine) have not
/// ended yet, their clean-up included (a staging folder, a temporary file): what `TaskGroups`
/// is to shell tasks, for actions that run on flowrun's own threads and have no process group.
///
/// A cancelled run whose standard output nobody reads exits once only writing is left
/// (`RunSignals`); an attempt counted here is more than writing: it is still removing what it
/// would otherwise leave behind.
package final class UnfinishedAttempts: Sendable {
    private let count = NIOLockedValueBox(0)

    package init() {}

    /// Whether no attempt is running or cleaning up.
    package var isEmpty: Bool { count.withLockedValue { $0 == 0 } }

    func began() { count.withLockedValue { $0 += 1 } }

    func ended() { count.withLockedValue { $0 -= 1 } }
}
