import FlowModel
import FlowPlanning

/// Every tracked task's input and output files with their statuses, taken before the run on
/// every core, for a plan large enough that a second core pays for itself: a run of up-to-date
/// tasks is mostly `stat(2)`, which ninja also does up front. Trusted only until a task runs
/// (it may change any file); each check after that stats again.
struct FilesBeforeRun {
    /// The fewest tasks for which the statuses are taken on every core.
    static let minimumTasks = 2 * ChunkedWork.minimumChunk

    private let files: [(inputs: [FoundFile], outputs: [FoundFile])?]

    /// nil when the plan is too small, or there is one core.
    init?(_ tasks: [PlannedTask], fileSystem: any FileSystem) {
        guard tasks.count >= Self.minimumTasks, ChunkedWork.cores > 1 else { return nil }
        files = ChunkedWork.map(tasks.count) { range in
            // Each task's files read in place: `tasks[index]` would copy it whole.
            tasks.withUnsafeBufferPointer { tasks in range.map { Self.files(of: TaskFiles(in: tasks, at: $0), fileSystem: fileSystem) } }
        }.flatMap { $0 }
    }

    private static func files(of task: TaskFiles, fileSystem: any FileSystem) -> (inputs: [FoundFile], outputs: [FoundFile])? {
        guard TaskDefinition.isTracked(task) else { return nil }
        return (
            FileDigests.statuses(
                ofPatterns: TaskDefinition.inputs(of: task), leavingOut: TaskDefinition.ownOutputs(of: task), fileSystem: fileSystem),
            FileDigests.statuses(ofPatterns: TaskDefinition.outputs(of: task), fileSystem: fileSystem)
        )
    }

    func files(of index: Int) -> (inputs: [FoundFile], outputs: [FoundFile])? { files[index] }
}
