import FlowFiles
import FlowModel
import FlowPlanning
import FlowState
import Foundation

/// `run --only TASK... [FILE]`: the words it takes, and the check of the needs it takes as done.
enum OnlyRun {
    /// `--only` collects every word up to the next option, so `--only a b ci.yaml` holds the
    /// file too: its last word is FILE when it is no task id, ends in .yaml/.yml or names a file.
    static func split(only: [String], file: String?, tasks: [String], workflow: WorkflowOptions) throws -> (file: String?, tasks: [String]) {
        guard !only.isEmpty else { return (file, tasks) }
        guard tasks.isEmpty else {
            throw CommandFailure("name the tasks after --only, not also as TASK: flowrun run --only TASK... [FILE]")
        }
        guard file == nil, only.count > 1, let last = only.last else { return (file, only) }
        let isFile =
            !last.isValidTaskID || last.hasSuffix(".yaml") || last.hasSuffix(".yml")
            || FileManager.default.fileExists(atPath: workflow.resolved(last))
        return isFile ? (last, Array(only.dropLast())) : (nil, only)
    }

    /// Refuses the run when a need taken as done did not leave its files: the task would
    /// fail later, further from the cause.
    static func refuseMissingOutputs(of plan: Plan) throws {
        let missing = OnlySelection.requiredOutputs(of: plan).filter { !exists($0.path) }
        guard let first = missing.first else { return }
        let more = missing.count > 1 ? " (and \(missing.count - 1) more missing)" : ""
        throw CommandFailure(
            "--only: task '\(first.task)' needs '\(first.need)'\(first.via.map { " (through the group '\($0)')" } ?? ""), taken as done, "
                + "but its output \(first.path) is missing\(more); "
                + "run '\(first.need)' first, or drop --only to run it with its needs")
    }

    private static func exists(_ path: String) -> Bool {
        PathGlob.isPattern(path) ? !PathGlob.files(matching: path).isEmpty : FileManager.default.fileExists(atPath: path)
    }
}
