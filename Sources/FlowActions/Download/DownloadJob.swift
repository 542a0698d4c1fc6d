import FlowEngine
import FlowModel
import Foundation
import NIOConcurrencyHelpers

/// One attempt of one download task: from the cache when its sha256 is there, else from a
/// transfer of the same URL another task made or is making, else by its own transfer.
final class DownloadJob: RunningAttempt, Sendable {
    private struct State {
        var ended = false
        var cancelled = false
        var stop: (@Sendable () -> Void)?
    }

    private let runner: DownloadRunner
    private let task: TaskID
    private let action: DownloadAction
    private let mayRetry: Bool
    private let progress: ProgressThrottle
    private let completion: @Sendable (AttemptResult) -> Void
    private let state = NIOLockedValueBox(State())
    private let key: SharedTransfers.Key
    /// The URL as `--dry-run` shows it, with secret values as `***`: what failure reasons name.
    private let shownURL: String

    init(
        runner: DownloadRunner, task: TaskID, action: DownloadAction, shownURL: String, mayRetry: Bool,
        progress: ProgressThrottle, completion: @escaping @Sendable (AttemptResult) -> Void
    ) {
        self.runner = runner
        self.task = task
        self.action = action
        self.mayRetry = mayRetry
        self.shownURL = shownURL
        self.progress = progress
        self.completion = completion
        key = SharedTransfers.Key(url: action.url.value, headers: action.headers.map { "\($0.name): \($0.value.value)" })
    }

    func begin() {
        if let sha256 = action.sha256, let cache = runner.cache, let blob = cache.lookup(sha256: sha256) {
            copy(from: blob, expecting: sha256) { _ in
                cache.evict(sha256: sha256)
                self.joinTransfer()
            }
        } else {
            joinTransfer()
        }
    }

    // MARK: Stopping

    func terminate() { cancel() }
    func kill() { cancel() }

    private func cancel() {
        let stop = state.withLockedValue { state -> (@Sendable () -> Void)? in
            guard !state.ended, !state.cancelled else { return nil }
            state.cancelled = true
            return state.stop
        }
        stop?()
    }

    /// Sets what `cancel()` does for the current step; false when already cancelled.
    private func onCancel(_ stop: @escaping @Sendable () -> Void) -> Bool {
        state.withLockedValue { state in
            guard !state.cancelled else { return false }
            state.stop = stop
            return true
        }
    }

    private var isCancelled: Bool { state.withLockedValue { $0.cancelled } }

    private func end(_ outcome: DownloadOutcome) {
        let first = state.withLockedValue { state in
            defer { state.ended = true }
            return !state.ended
        }
        guard first else { return }
        progress.end()
        let result: AttemptResult
        switch outcome {
        case .completed:
            result = .succeeded
        case .failed(let failure):
            let reason = shownURL == action.url.value ? failure.reason : failure.reason.replacingOccurrences(of: action.url.value, with: shownURL)
            result = .failedAdvising(reason: reason, retryable: failure.retryable, notBeforeMilliseconds: failure.retryAfterMilliseconds)
        case .cancelled:
            result = .failedAdvising(reason: "cancelled", retryable: false, notBeforeMilliseconds: nil)
        }
        let completion = completion
        runner.onLoop { completion(result) }
    }

    // MARK: Steps

    private func joinTransfer() {
        let role = runner.shared.join(key) { ending in self.sharedTransferEnded(ending) }
        switch role {
        case .leader:
            transfer()
        case .waiting:
            _ = onCancel { self.end(.cancelled) }
            if isCancelled { end(.cancelled) }
        case .finished(let path, let sha256):
            copyFinished(path: path, sha256: sha256)
        }
    }

    private func sharedTransferEnded(_ ending: SharedTransfers.Ending) {
        if isCancelled { return end(.cancelled) }
        switch ending {
        case .finished(let path, let sha256): copyFinished(path: path, sha256: sha256)
        case .failed(let failure) where failure.retryable: joinTransfer()
        case .failed(let failure): end(.failed(failure))
        }
    }

    /// Another task's file of the same URL, checked against this task's sha256 or else the
    /// digest the transfer computed (a later task may have changed it: then fetch again).
    private func copyFinished(path: String, sha256: String) {
        if let expected = action.sha256, expected.lowercased() != sha256 {
            return end(.failed(DownloadFailure("sha256 mismatch for \(action.to.value): expected \(expected.lowercased()), got \(sha256)", retryable: false)))
        }
        copy(from: path, expecting: sha256) { _ in
            self.runner.shared.forget(self.key)
            self.joinTransfer()
        }
    }

    /// Copies a local file to `to` through a temporary file; `fallback` runs instead of failing
    /// when the copy cannot be used.
    private func copy(from source: String, expecting sha256: String, fallback: @escaping @Sendable (DownloadFailure) -> Void) {
        let file: PartialFile
        do {
            file = try PartialFile(destination: action.to.value)
        } catch {
            return end(.failed(error))
        }
        let copy = LocalCopy()
        guard onCancel({ copy.cancel() }) else {
            file.queue.async { file.remove() }
            return end(.cancelled)
        }
        copy.start(from: source, into: file, progress: progress.report) { result in
            if copy.isCancelled {
                file.remove()
                return self.end(.cancelled)
            }
            do throws(DownloadFailure) {
                try result.get()
                let digest = try file.finish(expectedSHA256: sha256)
                self.end(.completed(sha256: digest, bytes: file.size))
            } catch {
                file.remove()
                fallback(error)
            }
        }
    }

    /// This task's own transfer, resuming the partial file its earlier attempt left.
    private func transfer() {
        let file: PartialFile
        do {
            file = try runner.partialFile(for: task, destination: action.to.value)
        } catch {
            runner.shared.ended(key, with: .failed(error))
            return end(.failed(error))
        }
        let url = action.url.value
        let finished: @Sendable (Result<Void, DownloadFailure>) -> Void = { result in self.transferEnded(result, file: file) }
        if url.lowercased().hasPrefix("file:") {
            let copy = LocalCopy()
            guard onCancel({ copy.cancel() }) else { return finished(.failure(Self.cancelled)) }
            let path = URL(string: url)?.path ?? String(url.dropFirst(5))
            copy.start(from: path, into: file, progress: progress.report) { result in
                finished(copy.isCancelled ? .failure(Self.cancelled) : result)
            }
        } else if url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") {
            let headers = action.headers.map { ($0.name, $0.value.value) }
            let attempt = runner.downloader.fetch(url, headers: headers, into: file, progress: progress.report) { result in
                finished(result)
            }
            if !onCancel({ attempt.cancel() }) { attempt.cancel() }
        } else {
            finished(.failure(DownloadFailure("\(url): only http, https and file URLs are supported", retryable: false)))
        }
    }

    private static let cancelled = DownloadFailure("cancelled", retryable: false)

    /// On the file's queue: verify and rename, or keep the partial file for a retry.
    private func transferEnded(_ result: Result<Void, DownloadFailure>, file: PartialFile) {
        let cancelled = isCancelled
        do throws(DownloadFailure) {
            try result.get()
            if cancelled { throw Self.cancelled }
            let digest = try file.finish(expectedSHA256: action.sha256)
            runner.attemptEnded(task, file: file, keep: false)
            runner.shared.ended(key, with: .finished(path: action.to.value, sha256: digest))
            if action.sha256 != nil { runner.cache?.store(action.to.value, sha256: digest) }
            end(.completed(sha256: digest, bytes: file.size))
        } catch {
            runner.attemptEnded(task, file: file, keep: !cancelled && error.retryable && mayRetry)
            runner.shared.ended(key, with: .failed(cancelled ? DownloadFailure("cancelled", retryable: true) : error))
            end(cancelled ? .cancelled : .failed(error))
        }
    }

    struct Finished: RunningAttempt {
        func terminate() {}
        func kill() {}
    }
}
