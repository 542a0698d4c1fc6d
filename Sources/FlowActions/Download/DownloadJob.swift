import FlowEngine
import FlowModel
import Foundation
import NIOConcurrencyHelpers

/// One attempt of one download task: from the cache when its sha256 is there, else from a
/// transfer of the same URL another task made or is making, else by its own transfer.
///
/// Each step registers on the attempt's stop flag how to interrupt it (`StopFlag.onStop`), and
/// the attempt ends once, on the first `attempt.end` (`ActionAttempt`).
final class DownloadJob: Sendable {
    private let runner: DownloadRunner
    private let task: TaskID
    private let action: DownloadAction
    private let mayRetry: Bool
    private let attempt: ActionAttempt
    private let key: SharedTransfers.Key

    init(runner: DownloadRunner, task: TaskID, action: DownloadAction, mayRetry: Bool, attempt: ActionAttempt) {
        self.runner = runner
        self.task = task
        self.action = action
        self.mayRetry = mayRetry
        self.attempt = attempt
        key = SharedTransfers.Key(url: action.url.value, headers: action.headers.map { "\($0.name): \($0.value.value)" })
    }

    func begin() {
        if let sha256 = action.sha256, let cache = runner.cache, let blob = cache.lookup(sha256: sha256) {
            copy(from: .path(blob), expecting: (content: nil, sha256: sha256.lowercased())) { _ in
                cache.evict(sha256: sha256)
                self.joinTransfer()
            }
        } else {
            joinTransfer()
        }
    }

    // MARK: Steps

    private func joinTransfer() {
        let role = runner.shared.join(key) { ending in self.sharedTransferEnded(ending) }
        switch role {
        case .leader:
            transfer()
        case .waiting:
            _ = attempt.stop.onStop { self.attempt.end(.cancelled) }
            if attempt.stop.isStopped { attempt.end(.cancelled) }
        case .finished(let path, let digests):
            copyFinished(.path(path), digests: digests)
        }
    }

    private func sharedTransferEnded(_ ending: SharedTransfers.Ending) {
        if attempt.stop.isStopped { return attempt.end(.cancelled) }
        switch ending {
        case .finished(let bytes): copyFinished(.finished(bytes), digests: bytes.digests)
        case .failed(let failure) where failure.retryable: joinTransfer()
        case .failed(let failure): attempt.end(failure)
        case .abandoned: joinTransfer()
        }
    }

    /// Another task's transfer of the same URL, checked against the digests the transfer
    /// computed (a later task may have changed the file: then fetch again), and against this
    /// task's sha256 (the transfer's, when it computed one: at once).
    private func copyFinished(_ source: LocalCopy.Source, digests: BodyDigests) {
        if let expected = action.sha256, let sha256 = digests.sha256, expected.lowercased() != sha256 {
            return attempt.end(ActionFailure("sha256 mismatch for \(action.to.value): expected \(expected.lowercased()), got \(sha256)", retryable: false))
        }
        copy(from: source, expecting: (digests.content, digests.sha256)) { _ in
            self.runner.shared.forget(self.key)
            self.joinTransfer()
        }
    }

    /// Copies a local file to `to` through a temporary file; `fallback` runs instead of failing
    /// when the source cannot be read or its bytes are not those expected (each digest given,
    /// lowercase hex). Failing to place the copy at `to`, or its bytes not matching this task's
    /// sha256, is this task's failure.
    private func copy(
        from source: LocalCopy.Source, expecting expected: (content: String?, sha256: String?),
        fallback: @escaping @Sendable (ActionFailure) -> Void
    ) {
        let file: PartialFile
        do {
            file = try PartialFile(destination: LinkedDestination.resolved(action.to.value), withSHA256: action.sha256 != nil || expected.sha256 != nil)
        } catch {
            return attempt.end(error)
        }
        let copy = LocalCopy()
        guard attempt.stop.onStop({ copy.cancel() }) else {
            file.queue.async { file.remove() }
            return attempt.end(.cancelled)
        }
        copy.start(from: source, into: file, progress: attempt.progress.report) { result in
            if copy.isCancelled {
                file.remove()
                return self.attempt.end(.cancelled)
            }
            do throws(ActionFailure) {
                try result.get()
                let copied = file.digests
                if let content = expected.content, copied.content != content {
                    throw ActionFailure("the copy's digest is \(copied.content), not \(content)", retryable: false)
                }
                if let sha256 = expected.sha256, copied.sha256 != sha256 {
                    throw ActionFailure("the copy's sha256 is \(copied.sha256 ?? "none"), not \(sha256)", retryable: false)
                }
            } catch {
                file.remove()
                return fallback(error)
            }
            do throws(ActionFailure) {
                _ = try file.finish(expectedSHA256: self.action.sha256, folderSyncs: self.runner.folderSyncs, noting: true)
                self.attempt.end(nil)
            } catch {
                self.attempt.end(error)
            }
        }
    }

    /// This task's own transfer, resuming the partial file its earlier attempt left.
    private func transfer() {
        let url = action.url.value
        let http = url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://")
        let file: PartialFile
        do {
            file = try runner.partialFile(
                for: task, destination: LinkedDestination.resolved(action.to.value), resumableFor: http ? url : nil, withSHA256: action.sha256 != nil)
        } catch {
            runner.shared.ended(key, with: .abandoned)
            return attempt.end(error)
        }
        let finished: @Sendable (Result<Void, ActionFailure>) -> Void = { result in self.transferEnded(result, file: file) }
        if url.lowercased().hasPrefix("file:") {
            let copy = LocalCopy()
            guard attempt.stop.onStop({ copy.cancel() }) else { return finished(.failure(ActionFailure.cancelled)) }
            guard let path = FileURLPath.path(of: url) else {
                return finished(.failure(ActionFailure("\(url): not a file URL of this machine", retryable: false)))
            }
            copy.start(from: .path(path), into: file, progress: attempt.progress.report) { result in
                finished(copy.isCancelled ? .failure(ActionFailure.cancelled) : result)
            }
        } else if http {
            let headers = action.headers.map { ($0.name, $0.value.value) }
            let request = runner.downloader.fetch(url, headers: headers, into: file, progress: attempt.progress.report) { result in
                finished(result)
            }
            if !attempt.stop.onStop({ request.cancel() }) { request.cancel() }
        } else {
            finished(.failure(ActionFailure("\(url): only http, https and file URLs are supported", retryable: false)))
        }
    }

    /// On the file's queue: verify and rename, or keep the partial file for a retry.
    private func transferEnded(_ result: Result<Void, ActionFailure>, file: PartialFile) {
        let cancelled = attempt.stop.isStopped
        do throws(ActionFailure) {
            try result.get()
            if cancelled { throw ActionFailure.cancelled }
        } catch {
            // A timed-out attempt keeps its bytes as a broken-off body does; a cancel drops them,
            // and so does a timeout that came once the body was whole (a Range from its end
            // would get a 416, and the next attempt would start over anyway).
            let bodyBrokeOff = (try? result.get()) == nil
            let resumable = cancelled ? attempt.isTimedOut && bodyBrokeOff : error.retryable
            runner.attemptEnded(task, file: file, keep: resumable && mayRetry)
            runner.shared.ended(key, with: cancelled ? .abandoned : .failed(error))
            var failure = error
            if !mayRetry, let last = error.reasonOnLastAttempt { failure.reason = last }
            return attempt.end(cancelled ? .cancelled : failure)
        }
        // The bytes are whole: tasks waiting for them get them open, whatever happens at this
        // task's `to` (its own sha256 or a rename that fails are its failures only).
        let bytes = runner.shared.isAwaited(key) ? FinishedFile(path: file.path, digests: file.digests) : nil
        let shared: SharedTransfers.Ending = bytes.map { .finished($0) } ?? .abandoned
        do throws(ActionFailure) {
            let digests = try file.finish(
                expectedSHA256: action.sha256, folderSyncs: runner.folderSyncs, noting: true, cache: action.sha256 == nil ? nil : runner.cache)
            runner.attemptEnded(task, file: file, keep: false)
            runner.shared.ended(key, with: shared, placed: (action.to.value, digests))
            attempt.end(nil)
        } catch {
            runner.attemptEnded(task, file: file, keep: false)
            runner.shared.ended(key, with: shared)
            attempt.end(error)
        }
    }
}
