import FlowModel
import FlowPlanning

/// What a cancelled run (Ctrl-C, SIGTERM, SIGHUP) does with `when: always` tasks, as GitHub
/// Actions does with `always()` steps and jobs of a cancelled workflow: they run, as cleanup.
///
/// - One waiting starts once its needs have ended (cancelled or skipped needs count as ended),
///   within the queues' limits; one already running goes on.
/// - They have the grace period (`--grace`, from the cancel) to start and run. Then any still
///   running is stopped as a timed-out task is, SIGTERM and SIGKILL `--grace` seconds later (so
///   a cancelled run ends within twice `--grace`), and any not started is skipped. GitHub
///   gives them the runner's cancel timeout in the same way.
/// - A second Ctrl-C, or SIGQUIT, kills them and starts no more.
/// - The run stays cancelled: its exit status is the signal's even if the cleanup succeeds.
package enum CleanupRule {
    /// Whether a task already running when the run is cancelled goes on, as cleanup.
    static func goesOn(_ when: When) -> Bool {
        when == .always
    }

    /// Why a cleanup task whose needs ended after the grace period does not start.
    static func lateReason(grace: Double) -> String {
        "cancelled: the grace period (\(seconds(grace))) ended before its needs did"
    }

    /// Why a cleanup task still running at the end of the grace period is stopped.
    static func overrunReason(grace: Double) -> String {
        "cleanup still running when the grace period (\(seconds(grace))) ended"
    }

    private static func seconds(_ grace: Double) -> String {
        grace == grace.rounded() ? "\(Int(grace))s" : "\(grace)s"
    }
}
