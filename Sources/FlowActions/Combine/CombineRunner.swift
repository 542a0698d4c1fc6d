import FlowEngine
import FlowModel
import FlowPlanning

/// Runs `combine` tasks: concat, tar, tar.gz, zip or image, written atomically to `to`.
///
/// `startAttempt` returns at once: the work runs on a worker thread (`ActionAttempt`), never on
/// the engine's loop, checks its stop flag between blocks (1 MiB of an input, 32 to 64 rows of
/// an image), and reports its end through the loop.
package struct CombineRunner: TaskRunner {
    /// The pixel ceiling: an input whose header claims more, or a combined image larger, is
    /// refused. 100 megapixels (400 MB decoded) holds a photo from nearly any camera, and
    /// keeps a small file that claims 1,000,000 x 1,000,000 from asking for terabytes.
    package static let defaultMaxPixels = 100_000_000

    private let loop: any EngineLoop
    private let maxPixels: Int
    private let unfinished: UnfinishedAttempts

    /// - Parameter unfinished: counts the attempts not ended (`UnfinishedAttempts`).
    package init(loop: any EngineLoop, maxPixels: Int = Self.defaultMaxPixels, unfinished: UnfinishedAttempts = UnfinishedAttempts()) {
        self.loop = loop
        self.maxPixels = maxPixels
        self.unfinished = unfinished
    }

    package func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        let combine: CombineAction? = if case .combine(let action) = task.action { action } else { nil }
        let running = ActionAttempt(
            of: task, events: events, unit: combine?.format.progressUnit ?? .bytes, loop: loop, unfinished: unfinished, completion: completion)
        guard let action = combine else {
            running.end(ActionFailure("not a combine task"))
            return running
        }
        let written: [String]? = if case .combine(let spec) = task.spec.action { spec.inputs.map(\.value) } else { nil }
        let job = CombineJob(action: action, writtenInputs: written, workdir: task.workdir, outputs: task.outputs, maxPixels: maxPixels)
        running.runOnWorker { running throws(ActionFailure) in
            try job.run(stop: running.stop, progress: running.progress)
        }
        return running
    }
}
