import Dispatch
import FlowEngine
import FlowModel
import Foundation

/// Cancels the run when the reader of standard output goes away (`EPIPE`), as SIGPIPE stops
/// `make` or `yes` in `... | head -1`: nothing new starts and running tasks are cancelled as by
/// SIGTERM, so that none is left behind; `--events-file` and `--junit` still get every event.
///
/// - Warning: `engine` and `closed` are guarded by `lock`.
final class StandardOutputClosed: @unchecked Sendable {
    static let reason = "standard output was closed"
    private let lock = NSLock()
    private var engine: Engine?
    private var closed = false

    /// Whether standard output's reader went away.
    var isClosed: Bool { lock.withLock { closed } }

    /// The engine to cancel; if standard output is already closed, it is cancelled now.
    func watch(_ engine: Engine) {
        let cancelNow: Bool = lock.withLock {
            self.engine = engine
            return closed
        }
        if cancelNow { Self.cancel(engine) }
    }

    /// For standard output's writer: called once, on its first failed write.
    func writeFailed(_ failure: WriteFailure) {
        guard failure.code == EPIPE else { return }
        let engine: Engine? = lock.withLock {
            closed = true
            return self.engine
        }
        if let engine { Self.cancel(engine) }
    }

    /// Elsewhere: the failed write happened inside a sink, maybe on a thread the engine is using.
    private static func cancel(_ engine: Engine) {
        DispatchQueue.global().async { engine.cancel(reason: reason) }
    }
}
