import Dispatch
import FlowEngine
import FlowModel
import FlowPlanning
import NIOConcurrencyHelpers

/// One attempt of a download, decompress or combine task, as the engine sees it: the one shape
/// their runners share.
///
/// A runner makes one in `startAttempt`, starts the work off the engine's loop (blocking work
/// with `runOnWorker`, a transfer on its own event loop) and returns it. The work sees a stop
/// through `stop`, reports through `progress`, and calls `end` when done: the first `end` is
/// the attempt's, and reports it on the loop (`ActionRunner` masks the task's secrets in it); a
/// later one is ignored. Terminate and kill are alike: both set `stop`, after which no progress goes out and
/// nothing outlives the work's next check but its clean-up.
final class ActionAttempt: RunningAttempt, Sendable {
    let stop: StopFlag
    let progress: ProgressThrottle
    private let loop: any EngineLoop
    private let completion: @Sendable (AttemptResult) -> Void
    private let ended = NIOLockedValueBox(false)
    /// Counts this attempt from its start to its end (`UnfinishedAttempts`).
    private let unfinished: UnfinishedAttempts
    private let timedOut = NIOLockedValueBox(false)

    /// Blocking reads and writes (libarchive, image codecs), so a queue of
    /// flowrun's own, which gets threads as they block, rather than the global one that the
    /// rest of the process shares; concurrent, as the engine's limits bound how many run.
    private static let workers = DispatchQueue(label: "flowrun.actions", qos: .utility, attributes: .concurrent)

    /// - Parameter unit: what the task's progress counts.
    /// - Parameter unfinished: the run's count of attempts not ended, which counts this one until its `end`.
    init(
        of task: PlannedTask, events: AttemptEvents, unit: ProgressUnit = .bytes, loop: any EngineLoop,
        unfinished: UnfinishedAttempts, completion: @escaping @Sendable (AttemptResult) -> Void
    ) {
        unfinished.began()
        self.unfinished = unfinished
        let stop = StopFlag()
        self.stop = stop
        self.loop = loop
        self.completion = completion
        progress = ProgressThrottle(clock: loop, unit: unit) { done, total, unit in
            // None once stopped: the engine is ending this attempt.
            if !stop.isStopped { events.progress(done, total, unit) }
        }
    }

    func terminate() { stop.stop() }
    /// Stopped by the task's timeout (set before `stop`): a download keeps its bytes for the retry.
    func timeOut() {
        timedOut.withLockedValue { $0 = true }
        stop.stop()
    }
    var isTimedOut: Bool { timedOut.withLockedValue { $0 } }
    func kill() { stop.stop() }

    /// Ends the attempt: succeeded with `failure` nil. Once; from any thread.
    func end(_ failure: ActionFailure?) {
        let first = ended.withLockedValue { ended in
            defer { ended = true }
            return !ended
        }
        guard first else { return }
        // The work and its clean-up are done: what is left is the report.
        unfinished.ended()
        progress.end(completed: failure == nil)
        let result = failure?.result ?? .succeeded
        let completion = completion
        loop.post { completion(result) }
    }

    /// Runs `work` on a worker thread, never on the loop, and ends the attempt with what it
    /// throws, or as succeeded.
    func runOnWorker(_ work: @escaping @Sendable (ActionAttempt) throws(ActionFailure) -> Void) {
        Self.workers.async { [self] in
            do throws(ActionFailure) {
                try work(self)
                end(nil)
            } catch {
                end(error)
            }
        }
    }
}
