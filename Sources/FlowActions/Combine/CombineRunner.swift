import Dispatch
import FlowEngine
import FlowModel
import FlowPlanning

/// Runs `combine` tasks: concat, tar, tar.gz, zip or image, written atomically to `to`.
///
/// `startAttempt` returns at once: the work runs on a queue of the runner's own, never on the
/// engine's loop, checks for cancellation between blocks (1 MiB of an input, 32 to 64 rows of
/// an image), and reports its end through the loop.
package struct CombineRunner: TaskRunner {
    /// The pixel ceiling: an input whose header claims more, or a combined image larger, is
    /// refused. 100 megapixels (400 MB decoded) holds a photo from nearly any camera, and
    /// keeps a small file that claims 1,000,000 x 1,000,000 from asking for terabytes.
    package static let defaultMaxPixels = 100_000_000

    /// Blocking reads and writes, so a queue of flowrun's own, which gets threads as they
    /// block, rather than the global one that the rest of the process shares.
    private static let workers = DispatchQueue(label: "flowrun.combine", attributes: .concurrent)

    private let loop: any EngineLoop
    private let maxPixels: Int

    package init(loop: any EngineLoop = ShellRunner.loop, maxPixels: Int = Self.defaultMaxPixels) {
        self.loop = loop
        self.maxPixels = maxPixels
    }

    package func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        let control = CombineControl(progress: events.progress)
        guard case .combine(let action) = task.action else {
            completion(.failed(reason: "not a combine task", exitCode: nil))
            return CombineAttempt(control: control)
        }
        let job = CombineJob(action: action, workdir: task.workdir, maxPixels: maxPixels)
        let loop = self.loop
        Self.workers.async {
            let result: AttemptResult
            do throws(ActionFailure) {
                try job.run(control: control)
                result = .succeeded
            } catch {
                result = .failed(reason: error.description, exitCode: nil)
            }
            loop.post { completion(result) }
        }
        return CombineAttempt(control: control)
    }
}

/// A running combine: stopping it sets the flag the work checks between blocks; the work
/// then removes its temporary file and completes the attempt as failed ("cancelled").
struct CombineAttempt: RunningAttempt {
    let control: CombineControl

    func terminate() { control.cancel() }
    func kill() { control.cancel() }
}
