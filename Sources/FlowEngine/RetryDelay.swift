import FlowModel

/// Back-off between attempts: the first delay doubles after each failed attempt, is capped at
/// 60 s, and is spread by ±25% jitter so that retries of many tasks do not arrive together.
package enum RetryDelay {
    package static let cap: Int64 = 60_000

    /// The delay after `attempt` (1-based) failed.
    package static func milliseconds(
        first: TimeSpan, afterAttempt attempt: Int, jitter: Double = Double.random(in: 0.75...1.25)
    ) -> Int64 {
        let doublings = min(attempt - 1, 20)
        let nominal = min(first.milliseconds << Int64(doublings), cap)
        return min(Int64((Double(nominal) * jitter).rounded()), cap)
    }
}
