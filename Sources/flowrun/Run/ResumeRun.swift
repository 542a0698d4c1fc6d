import FlowConsole
import FlowModel
import FlowPlanning
import FlowState
import Foundation

/// `flowrun run --resume [RUN] FILE`: finds the run to resume among the records of the file.
enum ResumeRun {
    /// Whether `word` names a run as `--resume-from` and `logs` take one: `last`, or the start of
    /// a run id from its whole date on (`20261125`, `20261125-0305`).
    static func namesARun(_ word: String) -> Bool {
        if word == "last" { return true }
        let parts = word.split(separator: "-", omittingEmptySubsequences: false)
        let widths = [8, 6, 3, Int.max]
        guard parts.count <= widths.count, parts[0].count == 8 else { return false }
        return zip(parts, widths).allSatisfy { part, width in
            !part.isEmpty && part.count <= width && part.allSatisfy { $0.isASCII && $0.isNumber }
        }
    }

    /// `--resume RUN FILE [TASK...]` reaches the command as FILE=RUN and TASK=[FILE, ...]: this
    /// takes RUN out when the first word names a run (an id, a start of one, `last`) and no file
    /// of that name exists.
    static func split(file: String?, tasks: [String]) -> (run: String?, file: String?, tasks: [String]) {
        guard let file, namesARun(file), !FileManager.default.fileExists(atPath: file) else { return (nil, file, tasks) }
        return (file, tasks.first, Array(tasks.dropFirst()))
    }

    /// The run `run` of the workflow `file` (its id, a unique start of one, or `last`; nil: its
    /// last run), and each task's end there.
    /// Throws (exit 2) when there is no such record.
    static func resumed(run: String?, file: String, environment: [String: String]) throws -> ResumeCheck.Resumed {
        let runs = RecordedRuns(file: file, environment: environment)
        let (records, newer) = runs.records()
        // `last` is the last run, refused as it is when a newer flowrun wrote that one.
        if let run, run != "last" {
            let found: RunRecord?
            do {
                found = try LogsCommand.find(run, in: records)
            } catch let failure as CommandFailure {
                // A start of an id that two runs share: said as every other --resume error is.
                throw CommandFailure("--resume: \(failure.message)", status: failure.status)
            }
            guard let record = found else {
                let workflow = runs.workflowFile ?? file
                if let other = otherWorkflow(ofRun: run, in: runs.store), other != workflow {
                    throw CommandFailure("--resume: run \(run) is a run of \(other), not of \(workflow): a run resumes its own workflow's runs")
                }
                let known = records.prefix(3).map(\.run).joined(separator: ", ")
                throw CommandFailure(
                    "--resume: no run \(run) recorded in \(runs.store.folder.path) for \(workflow)"
                        + (known.isEmpty ? "" : " (the last: \(known); see flowrun runs)"))
            }
            return resumed(from: record)
        }
        // The last run is one this flowrun cannot read: refused rather than an older one resumed.
        if let newest = newer.max(by: { $0.run < $1.run }), newest.run > records.first?.run ?? "" {
            throw CommandFailure("--resume: \(newest.problem.description)")
        }
        guard let record = records.first else {
            throw CommandFailure("--resume: nothing to resume: \(runs.none) (run it once without --resume, with recording on)")
        }
        return resumed(from: record)
    }

    /// Each task's end in `record`; none counts as done when the record is damaged (a flipped
    /// byte may have made any line say what the run did not do), and a warning names the lines.
    private static func resumed(from record: RunRecord) -> ResumeCheck.Resumed {
        let (tasks, damaged) = record.checkedTaskResults()
        guard let first = damaged.first else { return ResumeCheck.Resumed(run: record.run, tasks: tasks) }
        let more = damaged.count > 1 ? " (and \(damaged.count - 1) more)" : ""
        RecordOptions.warn(
            "--resume: the run record \(record.path) is damaged at line \(first)\(more): no task is taken from it as done; they run again unless up to date")
        return ResumeCheck.Resumed(run: record.run, tasks: tasks.mapValues { _ in RecordedTask(state: .unfinished, fingerprint: nil) })
    }

    /// The workflow file whose run `run` (an id, or the unique start of one) is, among every
    /// record of the state folder: named when `--resume` is given another workflow's run.
    private static func otherWorkflow(ofRun run: String, in store: RunRecordStore) -> String? {
        let paths = store.recordPaths(forWorkflow: nil).filter { (($0 as NSString).lastPathComponent).hasPrefix(run) }
        guard paths.count == 1, let record = try? RunRecord(path: paths[0]) else { return nil }
        return record.header.file
    }

    /// `--resume --dry-run`: for each task, whether the resume keeps it and why, or why it runs.
    static func preview(_ check: ResumeCheck, upToDate: UpToDateCheck?, of plan: Plan, secrets: EnvironmentSecrets) -> String {
        let decisions = check.preview(upToDate: upToDate?.preview())
        let run = check.resumedRun ?? "?"
        let width = min(plan.tasks.map(\.id.count).max() ?? 0, 32)
        var text = "\nResume of run \(run) (what --resume would keep):\n"
        var kept = 0
        for (task, decision) in zip(plan.tasks, decisions) {
            text += "  \(task.id.padding(toLength: max(width, task.id.count), withPad: " ", startingAt: 0))  "
            switch decision {
            case .upToDate:
                kept += 1
                text += "kept: up to date\n"
            case .doneBefore:
                kept += 1
                text += "kept: done in run \(run), unchanged since\n"
            case .runs(let why):
                text += "would run: \(Self.text(why, of: task, run: run, secrets: secrets))\n"
            }
        }
        text += "  \(kept.counted("task")) kept, \(plan.tasks.count - kept) would run\n"
        return text
    }

    private static func text(_ why: ResumeDecision.Why, of task: PlannedTask, run: String, secrets: EnvironmentSecrets) -> String {
        switch why {
        case .notInRun: return "not part of run \(run)"
        case .ended(.failed(let reason)): return "failed in run \(run) (\(ConsoleText.sanitized(reason)))"
        case .ended(.cancelled(let reason)): return "cancelled in run \(run) (\(ConsoleText.sanitized(reason)))"
        case .ended(.skipped(let reason)): return "skipped in run \(run) (\(ConsoleText.sanitized(reason)))"
        case .ended(.unfinished): return "did not finish in run \(run)"
        case .ended(.succeeded): return "succeeded in run \(run)"  // a success there is kept or changed: not reached
        case .notRecorded: return "what it left in run \(run) was not recorded (an output was missing, or an input changed while it ran)"
        case .needRuns(let need): return "needs '\(need)', which runs"
        case .changed(let reason?): return "\(ReasonText.text(reason, of: task, secrets: secrets)) since run \(run)"
        case .changed(nil): return "changed since run \(run) (its command, env, inputs, needs or outputs)"
        }
    }
}
