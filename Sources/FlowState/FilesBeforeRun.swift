import FlowModel
import FlowPlanning

/// Every tracked task's input and output files with their statuses, taken before the run on
/// every core, for a plan large enough that a second core pays for itself: a run of up-to-date
/// tasks is mostly `stat(2)`, which ninja also does up front. Trusted only until a task runs
/// (it may change any file); each check after that stats again.
///
/// The files of every task lie in one list, each task's found by where they start: a list per
/// task (two at 20,000 tasks: 40,000 arrays) held 1.3 MB more of a no-op's peak.
struct FilesBeforeRun {
    /// The fewest tasks for which the statuses are taken on every core.
    static let minimumTasks = 2 * ChunkedWork.minimumChunk

    /// Each tracked task's inputs, then its outputs, task after task in plan order.
    private let found: [FoundFile]
    /// Where the task at `index` has its inputs (`bounds[2 * index]..<bounds[2 * index + 1]`)
    /// and its outputs (`bounds[2 * index + 1]..<bounds[2 * index + 2]`) in `found`.
    private let bounds: [Int32]
    /// Whether the task at an index is tracked: one that is not has no files taken (nil).
    private let tracked: [Bool]

    /// nil when the plan is too small, or there is one core, or it names more files than an
    /// `Int32` counts.
    init?(_ tasks: [PlannedTask], fileSystem: any FileSystem) {
        guard tasks.count >= Self.minimumTasks, ChunkedWork.cores > 1 else { return nil }
        let chunks = ChunkedWork.map(tasks.count) { range in
            // Each task's files read in place: `tasks[index]` would copy it whole.
            tasks.withUnsafeBufferPointer { tasks in Self.files(of: range, in: tasks, fileSystem: fileSystem) }
        }
        let total = chunks.reduce(0) { $0 + $1.found.count }
        guard total < Int(Int32.max) else { return nil }
        var found: [FoundFile] = []
        found.reserveCapacity(total)
        var bounds: [Int32] = [0]
        bounds.reserveCapacity(2 * tasks.count + 1)
        var tracked: [Bool] = []
        tracked.reserveCapacity(tasks.count)
        for chunk in chunks {
            // A chunk's bounds count from its own start.
            let start = Int32(found.count)
            found += chunk.found
            bounds += chunk.ends.lazy.map { start + $0 }
            tracked += chunk.tracked
        }
        (self.found, self.bounds, self.tracked) = (found, bounds, tracked)
    }

    /// The files of the tasks in `range`: found one after the other, with where each task's
    /// inputs and outputs end among them, and whether each task is tracked.
    private static func files(
        of range: Range<Int>, in tasks: UnsafeBufferPointer<PlannedTask>, fileSystem: any FileSystem
    ) -> (found: [FoundFile], ends: [Int32], tracked: [Bool]) {
        var found: [FoundFile] = []
        found.reserveCapacity(2 * range.count)
        var ends: [Int32] = []
        ends.reserveCapacity(2 * range.count)
        var tracked: [Bool] = []
        tracked.reserveCapacity(range.count)
        for index in range {
            let task = TaskFiles(in: tasks, at: index)
            let isTracked = TaskDefinition.isTracked(task)
            tracked.append(isTracked)
            if isTracked {
                found += FileDigests.statuses(
                    ofPatterns: TaskDefinition.inputs(of: task), leavingOut: TaskDefinition.ownOutputs(of: task),
                    singleFiles: TaskDefinition.singleFileInputs(of: task), fileSystem: fileSystem)
            }
            ends.append(Int32(found.count))
            if isTracked { found += FileDigests.statuses(ofPatterns: TaskDefinition.outputs(of: task), areOutputs: true, fileSystem: fileSystem) }
            ends.append(Int32(found.count))
        }
        return (found, ends, tracked)
    }

    /// The input and output files of the task at `index`, with their statuses before the run;
    /// nil for a task that is not tracked.
    func files(of index: Int) -> (inputs: ArraySlice<FoundFile>, outputs: ArraySlice<FoundFile>)? {
        guard tracked[index] else { return nil }
        let (start, middle, end) = (Int(bounds[2 * index]), Int(bounds[2 * index + 1]), Int(bounds[2 * index + 2]))
        return (found[start..<middle], found[middle..<end])
    }
}
