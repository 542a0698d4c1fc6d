import FlowModel
import Foundation

/// What the combine work checks between blocks, and how it reports progress.
///
/// - Warning: `cancelled` and `lastProgress` are guarded by `lock`: `cancel()` comes from the
///   engine's thread while the work runs on the runner's queue.
final class CombineControl: @unchecked Sendable {
    /// At most 10 progress events a second per task (the limit), plus the last one.
    static let progressInterval = 0.1

    private let report: @Sendable (Int64, Int64?, ProgressUnit) -> Void
    private let lock = NSLock()
    private var cancelled = false
    private var lastProgress: TimeInterval = -.infinity

    init(progress: @escaping @Sendable (Int64, Int64?, ProgressUnit) -> Void = { _, _, _ in }) {
        report = progress
    }

    func cancel() {
        lock.withLock { cancelled = true }
    }

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// `isCancelled` for C code that asks every so many rows, given `opaque` as its context
    /// (the image codec); the caller keeps the control alive meanwhile.
    static let isCancelled: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = {
        Unmanaged<CombineControl>.fromOpaque($0!).takeUnretainedValue().isCancelled ? 1 : 0
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Throws `.cancelled` once `cancel()` was called: the work calls it between blocks.
    func checkCancelled() throws(ActionFailure) {
        if isCancelled { throw .cancelled }
    }

    /// Reports progress unless the last report was under `progressInterval` ago; `final`
    /// reports always go out, so that the last value seen is the total.
    func progress(_ done: Int64, of total: Int64?, _ unit: ProgressUnit, final: Bool = false) {
        let now = ProcessInfo.processInfo.systemUptime
        let due = lock.withLock {
            guard final || now - lastProgress >= Self.progressInterval else { return false }
            lastProgress = now
            return true
        }
        if due { report(done, total, unit) }
    }
}
