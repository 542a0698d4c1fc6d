import FlowActions
import FlowConsole
import FlowFiles
import FlowModel
import FlowPlanning
import FlowState

/// A reason a task would run, as `--dry-run` prints it: `changed input src/a.txt`, `missing
/// output build/*.o`, `changed input under parts/ (a file added or removed)`.
///
/// The path is shown relative to the task's workdir when it is under it, as it is written in
/// the file; a secret value the task's fields took (`PlannedTask.shown`) is `***` in it, as in
/// the plan above it, and so is one of its environment's secrets (a file a glob found may be
/// named after one), as in the task's output (`SecretMask`).
enum ReasonText {
    static func text(_ reason: RunReason, of task: PlannedTask, secrets: EnvironmentSecrets) -> String {
        guard let place = reason.path else { return reason.description }
        let mask = SecretMask(outputOf: task, environmentSecrets: secrets.values(of: task))
        // A file found under a glob is named by whoever made it: no escape sequence of its name is printed.
        let path = ConsoleText.sanitized(shown(place.path, of: task, masked: mask))
        return place.isWholePattern ? "\(reason) under \(path) (a file added or removed)" : "\(reason) \(path)"
    }

    /// `path` (absolute, as planned) as `--dry-run` shows it: masked as the task's output is
    /// (every value its fields took, so a file under a pattern holds what the pattern held),
    /// then relative to the workdir, masked the same way (as the plan shows a workdir that took one).
    static func shown(_ path: String, of task: PlannedTask, masked mask: SecretMask) -> String {
        let path = mask(path)
        let workdir = mask(task.workdir)
        return PathNesting.relative(path, to: workdir) ?? path
    }
}
