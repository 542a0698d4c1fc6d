/// The time a run has left, from the rate at which its tasks have finished so far.
///
/// Shown once at least `minimumFinished` tasks and `minimumShare` of them have ended: before
/// that, a few quick tasks (or a slow first one) say little about the rest. The estimate is
/// `elapsed × left / finished`: the rate of finishing already includes how many tasks run at
/// once and how long each takes, queues and dependencies too, which a mean task duration
/// divided by the concurrency would not. It is measured up to now, so a long wait for the next
/// task to end pushes the estimate up as it goes.
enum RunEstimate {
    static let minimumFinished = 3
    /// One tenth of the tasks.
    static let minimumShare = 0.1

    /// Milliseconds left; nil until enough tasks have ended, or when all have.
    static func millisecondsLeft(finished: Int, total: Int, elapsedMilliseconds: Int64) -> Int64? {
        guard finished < total, finished >= minimumFinished, Double(finished) >= minimumShare * Double(total), elapsedMilliseconds > 0 else {
            return nil
        }
        return Int64(Double(elapsedMilliseconds) * Double(total - finished) / Double(finished))
    }
}
