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
    /// Failure reasons show the task's secret values as `--dry-run` does: `***`.
    private let mask: SecretMask

    init(
        runner: DownloadRunner, task: TaskID, action: DownloadAction, mask: SecretMask, mayRetry: Bool,
        progress: ProgressThrottle, completion: @escaping @Sendable (AttemptResult) -> Void
    ) {
        self.runner = runner
        self.task = task
        self.action = action
        self.mayRetry = mayRetry
        self.mask = mask
        self.progress = progress
        self.completion = completion
        key = SharedTransfers.Key(url: action.url.value, headers: action.headers.map { "\($0.name): \($0.value.value)" })
    }

    func begin() {
        if let sha256 = action.sha256, let cache = runner.cache, let blob = cache.lookup(sha256: sha256) {
            copy(from: .path(blob), expecting: sha256) { _ in
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
            result = .failedAdvising(reason: mask(failure.reason), retryable: failure.retryable, notBeforeMilliseconds: failure.retryAfterMilliseconds)
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
            copyFinished(.path(path), sha256: sha256)
        }
    }

    private func sharedTransferEnded(_ ending: SharedTransfers.Ending) {
        if isCancelled { return end(.cancelled) }
        switch ending {
        case .finished(let bytes): copyFinished(.finished(bytes), sha256: bytes.sha256)
        case .failed(let failure) where failure.retryable: joinTransfer()
        case .failed(let failure): end(.failed(failure))
        case .abandoned: joinTransfer()
        }
    }

    /// Another task's transfer of the same URL, checked against this task's sha256 or else the
    /// digest the transfer computed (a later task may have changed the file: then fetch again).
    private func copyFinished(_ source: LocalCopy.Source, sha256: String) {
        if let expected = action.sha256, expected.lowercased() != sha256 {
            return end(.failed(ActionFailure("sha256 mismatch for \(action.to.value): expected \(expected.lowercased()), got \(sha256)", retryable: false)))
        }
        copy(from: source, expecting: sha256) { _ in
            self.runner.shared.forget(self.key)
            self.joinTransfer()
        }
    }

    /// Copies a local file to `to` through a temporary file; `fallback` runs instead of failing
    /// when the source cannot be read or its bytes are not those expected. Failing to place the
    /// copy at `to` is this task's failure.
    private func copy(from source: LocalCopy.Source, expecting sha256: String, fallback: @escaping @Sendable (ActionFailure) -> Void) {
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
            do throws(ActionFailure) {
                try result.get()
                guard file.sha256 == sha256.lowercased() else {
                    throw ActionFailure("the copy's sha256 is \(file.sha256), not \(sha256)", retryable: false)
                }
            } catch {
                file.remove()
                return fallback(error)
            }
            do throws(ActionFailure) {
                let digest = try file.finish(expectedSHA256: sha256, folderSyncs: self.runner.folderSyncs, noting: true)
                self.end(.completed(sha256: digest, bytes: file.size))
            } catch {
                self.end(.failed(error))
            }
        }
    }

    /// This task's own transfer, resuming the partial file its earlier attempt left.
    private func transfer() {
        let file: PartialFile
        do {
            file = try runner.partialFile(for: task, destination: action.to.value)
        } catch {
            runner.shared.ended(key, with: .abandoned)
            return end(.failed(error))
        }
        let url = action.url.value
        let finished: @Sendable (Result<Void, ActionFailure>) -> Void = { result in self.transferEnded(result, file: file) }
        if url.lowercased().hasPrefix("file:") {
            let copy = LocalCopy()
            guard onCancel({ copy.cancel() }) else { return finished(.failure(Self.cancelled)) }
            let path = URL(string: url)?.path ?? String(url.dropFirst(5))
            copy.start(from: .path(path), into: file, progress: progress.report) { result in
                finished(copy.isCancelled ? .failure(Self.cancelled) : result)
            }
        } else if url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") {
            let headers = action.headers.map { ($0.name, $0.value.value) }
            let attempt = runner.downloader.fetch(url, headers: headers, into: file, progress: progress.report) { result in
                finished(result)
            }
            if !onCancel({ attempt.cancel() }) { attempt.cancel() }
        } else {
            finished(.failure(ActionFailure("\(url): only http, https and file URLs are supported", retryable: false)))
        }
    }

    private static let cancelled = ActionFailure("cancelled", retryable: false)

    /// On the file's queue: verify and rename, or keep the partial file for a retry.
    private func transferEnded(_ result: Result<Void, ActionFailure>, file: PartialFile) {
        let cancelled = isCancelled
        do throws(ActionFailure) {
            try result.get()
            if cancelled { throw Self.cancelled }
        } catch {
            runner.attemptEnded(task, file: file, keep: !cancelled && error.retryable && mayRetry)
            runner.shared.ended(key, with: cancelled ? .abandoned : .failed(error))
            return end(cancelled ? .cancelled : .failed(error))
        }
        // The bytes are whole: tasks waiting for them get them open, whatever happens at this
        // task's `to` (its own sha256 or a rename that fails are its failures only).
        let bytes = FinishedFile(path: file.path, sha256: file.sha256)
        let shared: SharedTransfers.Ending = bytes.map { .finished($0) } ?? .abandoned
        do throws(ActionFailure) {
            let digest = try file.finish(
                expectedSHA256: action.sha256, folderSyncs: runner.folderSyncs, noting: true, cache: action.sha256 == nil ? nil : runner.cache)
            runner.attemptEnded(task, file: file, keep: false)
            runner.shared.ended(key, with: shared, placedAt: action.to.value)
            end(.completed(sha256: digest, bytes: file.size))
        } catch {
            runner.attemptEnded(task, file: file, keep: false)
            runner.shared.ended(key, with: shared)
            end(.failed(error))
        }
    }

    struct Finished: RunningAttempt {
        func terminate() {}
        func kill() {}
    }
}
