import FlowEngine
import FlowFiles
import FlowModel
import FlowPlanning
import Foundation
import NIOConcurrencyHelpers

/// Runs `download` tasks: http and https through AsyncHTTPClient, `file://` by copying, each
/// into a temporary file beside `to` that is renamed onto it once complete and verified.
///
/// One per run: it owns the run's HTTP clients (`finishRun()` shuts them down), the partial files
/// kept between a task's attempts for resuming, and the transfers tasks share by URL.
package final class DownloadRunner: TaskRunner, Sendable {
    let downloader: Downloader
    let cache: DownloadCache?
    let shared = SharedTransfers()
    /// The folders of the `to`s placed in this run, fsynced once at its end (`finishRun()`).
    let folderSyncs = DeferredFolderSyncs()
    private let partials = NIOLockedValueBox<[TaskID: PartialFile]>([:])
    /// The engine's loop, where attempts report their ends.
    private let loop: any EngineLoop
    private let unfinished: UnfinishedAttempts

    /// `environment` gives the proxies, SSL_CERT_FILE and the cache folder; `unfinished` counts
    /// the attempts not ended (`UnfinishedAttempts`).
    package init(
        environment: [String: String], loop: any EngineLoop, settings: Downloader.Settings = Downloader.Settings(),
        unfinished: UnfinishedAttempts = UnfinishedAttempts()
    ) {
        downloader = Downloader(environment: environment, settings: settings)
        cache = DownloadCache(environment: environment)
        self.loop = loop
        self.unfinished = unfinished
    }

    package func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        let running = ActionAttempt(of: task, events: events, loop: loop, unfinished: unfinished, completion: completion)
        guard case .download(let action) = task.action else {
            running.end(ActionFailure("not a download task"))
            return running
        }
        DownloadJob(runner: self, task: task.id, action: action, mayRetry: attempt <= task.spec.retries, attempt: running).begin()
        return running
    }

    /// Removes the partial files no later attempt will resume, makes the renames onto each
    /// `to` durable (one fsync per folder) and shuts the HTTP clients down: at the end of the
    /// run, whatever its outcome.
    package func finishRun() {
        let left = partials.withLockedValue { partials in
            defer { partials = [:] }
            return Array(partials.values)
        }
        for partial in left { partial.queue.sync { partial.remove() } }
        // Both wait, on the disk and on the HTTP clients' thread: the one overlaps the other
        // (the file queues' idle worker threads take the flush).
        let flushed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { [folderSyncs] in
            folderSyncs.flush()
            flushed.signal()
        }
        downloader.shutdown()
        flushed.wait()
    }

    /// The task's partial file from an earlier attempt, or a new one; for an http `url`, one a
    /// later flowrun can resume (`PartialFile.resumable`); `withSHA256` for a task with `sha256:`.
    func partialFile(for task: TaskID, destination: String, resumableFor url: String?, withSHA256: Bool) throws(ActionFailure) -> PartialFile {
        if let kept = partials.withLockedValue({ $0[task] }), kept.destination == destination { return kept }
        let file: PartialFile
        if let url {
            file = try PartialFile.resumable(destination: destination, url: url, withSHA256: withSHA256)
        } else {
            file = try PartialFile(destination: destination, withSHA256: withSHA256)
        }
        partials.withLockedValue { $0[task] = file }
        return file
    }

    /// Keeps the partial file for the next attempt, or removes it for good.
    func attemptEnded(_ task: TaskID, file: PartialFile, keep: Bool) {
        if keep { return }
        file.remove()
        partials.withLockedValue { partials in
            if partials[task] === file { partials[task] = nil }
        }
    }
}
