import FlowConsole
import FlowFiles
import FlowModel
import FlowPlanning
import FlowState
import Foundation

/// Sets up the up-to-date check of a run (`inputs:`/`outputs:`), and shows it for `--dry-run`.
enum UpToDateRun {
    /// The check for a run of `plan`; nil for a workflow read from a device (`/dev/stdin`), which
    /// has no folder to keep state in. The state folder is made when there is something to keep.
    /// `definitions`: the tasks' definition digests kept with the compiled plan, if it was read.
    static func check(
        for plan: Plan, environment: [String: String], force: Bool, definitions: DefinitionDigests? = nil
    ) throws
        -> UpToDateCheck?
    {
        let workflowFile = URL(fileURLWithPath: plan.workflow.file).standardizedFileURL.path
        guard !workflowFile.hasPrefix("/dev/"), !workflowFile.hasPrefix("/proc/") else { return nil }
        let folder = StateFolder(forWorkflowAt: workflowFile, environment: environment)
        let states = TaskStates(folder: folder, workflowFile: workflowFile)
        if let problem = states.ignoredProblem { warn(problem) }
        return UpToDateCheck(plan: plan, states: states, force: force, definitions: definitions)
    }

    /// Whether a run of `plan` has a task that can be up to date: a workflow that declares no
    /// `inputs` or `outputs` (and has no download, decompress or combine task) reads no state
    /// and takes no task's fingerprint for it. Under `run --only`, a need taken as done that tracks
    /// files counts too: its state gives the tasks run their whole run's fingerprints (`NeedOfOnly`).
    static func isNeeded(for plan: Plan) -> Bool {
        TaskDefinition.anyTracked(plan.tasks) || TaskDefinition.anyTracked(plan.takenAsDone)
    }

    /// Ends the check of a run: writes the task state, and says if a write to it failed.
    static func finish(_ check: UpToDateCheck?) {
        guard let check else { return }
        check.finish()
        if let failure = check.writeFailure {
            warn("the up-to-date state was not fully saved (\(failure)): the next run may run tasks again")
        }
    }

    /// Whether `--dry-run` shows the check: some task declares `inputs` or `outputs`, or the
    /// workflow has run before. (A plan of downloads alone, never run, would only say `never ran`.)
    static func isWorthShowing(_ check: UpToDateCheck, of plan: Plan) -> Bool {
        check.hasHistory || plan.tasks.contains { !$0.inputs.isEmpty || !$0.outputs.isEmpty }
    }

    /// `--dry-run`: which tasks would run, and why; with `verbose`, also which are up to date
    /// (as go-task's `--verbose` says `Task "NAME" is up to date`). `lastRuns` gives the tasks
    /// asked for their last run's end (`lastRuns(of:wanted:environment:)`); a path named is
    /// masked with `secrets`.
    static func preview(
        _ check: UpToDateCheck, of plan: Plan, secrets: EnvironmentSecrets, verbose: Bool = false,
        lastRuns: (Set<TaskID>) -> [TaskID: LastRun] = { _ in [:] }
    ) -> String {
        let reasons = check.preview()
        let neverRecorded = Set(zip(plan.tasks, reasons).compactMap { $0.1?.kind == .neverRan ? $0.0.id : nil })
        let ends = neverRecorded.isEmpty ? [:] : lastRuns(neverRecorded)
        let width = min(plan.tasks.map(\.id.count).max() ?? 0, 32)
        var text = "\nUp to date check (inputs and outputs):\n"
        var upToDate = 0
        for (task, reason) in zip(plan.tasks, reasons) {
            let name = task.id.padding(toLength: max(width, task.id.count), withPad: " ", startingAt: 0)
            guard let reason else {
                upToDate += 1
                if verbose { text += "  \(name)  up to date\n" }
                continue
            }
            text += "  \(name)  would run: \(Self.text(reason, of: task, lastRun: ends[task.id], secrets: secrets))\n"
        }
        text += "  \(upToDate) task\(upToDate == 1 ? "" : "s") up to date\n"
        return text
    }

    /// How a task ended the last time it ran: the run's id and its end there.
    struct LastRun: Equatable {
        var run: String
        var state: RecordedTask.State
    }

    /// A task with no record of success that ran before is not `never ran`: one that succeeded
    /// but made no output it declares (so none was recorded) says, as make does, the output it
    /// lacks; one that failed, was cancelled or was cut short says so, with the run.
    static func text(_ reason: RunReason, of task: PlannedTask, lastRun: LastRun?, secrets: EnvironmentSecrets) -> String {
        guard reason.kind == .neverRan, let lastRun else { return ReasonText.text(reason, of: task, secrets: secrets) }
        switch lastRun.state {
        case .succeeded:
            let missing = TaskDefinition.outputs(of: task).first { !PathGlob.isPattern($0) && !FileManager.default.fileExists(atPath: $0) }
            return ReasonText.text(missing.map { RunReason(.missingOutput, path: ReasonPath(path: $0, pattern: $0)) } ?? reason, of: task, secrets: secrets)
        case .failed(let why): return "failed in run \(lastRun.run) (\(ConsoleText.sanitized(why)))"
        case .cancelled(let why): return "cancelled in run \(lastRun.run) (\(ConsoleText.sanitized(why)))"
        case .unfinished: return "did not finish in run \(lastRun.run)"
        case .skipped: return ReasonText.text(reason, of: task, secrets: secrets)
        }
    }

    /// Each of the `wanted` tasks' end in the newest run record of `file` where it ran (a skip
    /// is looked past: `flowrun FILE other` or an up-to-date skip says nothing of it), read
    /// silently (`--dry-run` says why a task would run; a broken record is `flowrun runs`'s to
    /// report). Older records are read only while a wanted task is not found.
    static func lastRuns(of file: String, wanted: Set<TaskID>, environment: [String: String]) -> [TaskID: LastRun] {
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let store = RunRecordStore(folder: StateFolder(forWorkflowAt: path, environment: environment))
        var found: [TaskID: LastRun] = [:]
        for record in store.records(forWorkflow: path).records where found.count < wanted.count {
            for (task, result) in record.taskResults() where wanted.contains(task) && found[task] == nil {
                if case .skipped = result.state { continue }
                found[task] = LastRun(run: record.run, state: result.state)
            }
        }
        return found
    }

    private static func warn(_ message: String) {
        StandardError.write("flowrun: warning: \(message)\n")
    }
}
