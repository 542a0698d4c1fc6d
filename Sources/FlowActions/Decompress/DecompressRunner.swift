import FlowEngine
import FlowModel
import FlowPlanning

/// Runs `decompress` tasks: each attempt extracts on a worker thread (`ActionAttempt`), never
/// on the engine's loop, and reports its end through the loop.
package struct DecompressRunner: TaskRunner {
    private let loop: any EngineLoop
    private let unfinished: UnfinishedAttempts

    /// - Parameter unfinished: counts the attempts not ended (`UnfinishedAttempts`).
    package init(loop: any EngineLoop, unfinished: UnfinishedAttempts = UnfinishedAttempts()) {
        self.loop = loop
        self.unfinished = unfinished
    }

    package func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        let running = ActionAttempt(of: task, events: events, loop: loop, unfinished: unfinished, completion: completion)
        guard case .decompress(let action) = task.action else {
            running.end(ActionFailure("not a decompress task"))
            return running
        }
        let extractor = ArchiveExtractor(
            from: action.from.value, to: action.to.value, format: action.format, stripComponents: action.stripComponents,
            limits: ExtractionLimits(maxFiles: action.maxFiles, maxBytes: action.maxBytes, maxRatio: action.maxRatio)
        )
        running.runOnWorker { running throws(ActionFailure) in
            try extractor.run(isCancelled: { running.stop.isStopped }, progress: running.progress.report)
        }
        return running
    }
}
