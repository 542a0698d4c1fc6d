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
    /// and takes no task's fingerprint for it.
    static func isNeeded(for plan: Plan) -> Bool {
        plan.tasks.contains(where: TaskDefinition.isTracked)
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
    /// (as go-task's `--verbose` says `Task "NAME" is up to date`).
    static func preview(
        _ check: UpToDateCheck, of plan: Plan, verbose: Bool = false, lastRun: [TaskID: RecordedTask] = [:]
    ) -> String {
        let reasons = check.preview().enumerated().map { index, reason in
            reason.map { ranWithoutOutput($0, of: plan.tasks[index], lastRun: lastRun) }
        }
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
            text += "  \(name)  would run: \(ReasonText.text(reason, of: task))\n"
        }
        text += "  \(upToDate) task\(upToDate == 1 ? "" : "s") up to date\n"
        return text
    }

    /// A task with no record of success that did succeed in the last run made no output it
    /// declares (so none was recorded): not `never ran` but, as make says, the output it lacks.
    static func ranWithoutOutput(_ reason: RunReason, of task: PlannedTask, lastRun: [TaskID: RecordedTask]) -> RunReason {
        guard reason.kind == .neverRan, lastRun[task.id]?.state == .succeeded else { return reason }
        let missing = TaskDefinition.outputs(of: task).first { !PathGlob.isPattern($0) && !FileManager.default.fileExists(atPath: $0) }
        return missing.map { RunReason(.missingOutput, path: ReasonPath(path: $0, pattern: $0)) } ?? reason
    }

    /// Each task's end in the newest run record of `file`, read silently (`--dry-run` says why
    /// a task would run; a broken record is `flowrun runs`'s to report).
    static func lastRun(of file: String, environment: [String: String]) -> [TaskID: RecordedTask] {
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let store = RunRecordStore(folder: StateFolder(forWorkflowAt: path, environment: environment))
        return store.records(forWorkflow: path).records.first?.taskResults() ?? [:]
    }

    private static func warn(_ message: String) {
        FileHandle.standardError.write(Data("flowrun: warning: \(message)\n".utf8))
    }
}
