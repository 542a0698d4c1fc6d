import Dispatch
import FlowEngine
import FlowModel
import FlowPlanning
import Foundation

/// Runs `decompress` tasks: each attempt extracts on a worker thread of its own, never on the
/// engine's loop, and reports its end through the loop.
package struct DecompressRunner: TaskRunner {
    private let loop: any EngineLoop
    /// Concurrent: the engine's limits bound how many extractions run at once.
    private static let workers = DispatchQueue(label: "flowrun.decompress", qos: .utility, attributes: .concurrent)

    package init(loop: any EngineLoop) {
        self.loop = loop
    }

    package func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        guard case .decompress(let action) = task.action else {
            completion(.failed(reason: "not a decompress task", exitCode: nil))
            return ExtractionAttempt()
        }
        let extractor = ArchiveExtractor(
            from: action.from.value, to: action.to.value, format: action.format, stripComponents: action.stripComponents,
            limits: ExtractionLimits(maxFiles: action.maxFiles, maxBytes: action.maxBytes, maxRatio: action.maxRatio)
        )
        // Failures name the paths as `--dry-run` shows them: a secret in a path stays `***`.
        let replacements: [(String, String)] =
            if case .decompress(let masked) = task.shown?.action {
                [(action.from.value, masked.from.value), (action.to.value, masked.to.value)]
            } else {
                []
            }
        let shown = { @Sendable (message: String) in
            replacements.reduce(message) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
        }
        let running = ExtractionAttempt()
        let loop = self.loop
        Self.workers.async {
            let result: AttemptResult
            do throws(ActionFailure) {
                try extractor.run(isCancelled: { running.isStopped }, progress: { done, total in events.progress(done, total, .bytes) })
                result = .succeeded
            } catch {
                result = .failed(reason: shown(error.reason), exitCode: nil)
            }
            loop.post { completion(result) }
        }
        return running
    }
}

/// A running extraction: stopping it sets a flag the worker reads between data blocks; the
/// worker then removes its staging folder and completes. Terminate and kill are alike, as
/// nothing outlives the check but the removal of the staging folder.
final class ExtractionAttempt: RunningAttempt, @unchecked Sendable {
    private let lock = NSLock()  // guards `stopped`
    private var stopped = false

    var isStopped: Bool { lock.withLock { stopped } }

    func terminate() { lock.withLock { stopped = true } }

    func kill() { terminate() }
}
