import Dispatch
import FlowEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns signals into engine calls for the length of a run (ARCHITECTURE.md, trap 4).
///
/// SIGINT or SIGTERM cancels the run, and a second SIGINT kills what is still running; SIGUSR1
/// suspends the queues and SIGUSR2 resumes them. The default actions are ignored, so the
/// signals only reach the Dispatch sources; children get their default dispositions back at
/// spawn. SIGPIPE is ignored so that a closed stdout shows up as a write error, not a death.
///
/// - Warning: `cancelledBy` is only touched on `queue`.
final class RunSignals: @unchecked Sendable {
    private let queue = DispatchQueue(label: "flowrun.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var cancelledBy: Int32?

    init(engine: Engine) {
        signal(SIGPIPE, SIG_IGN)
        for number in [SIGINT, SIGTERM, SIGUSR1, SIGUSR2] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in received(number, engine: engine) }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal that cancelled the run (SIGINT or SIGTERM), if one did.
    var cancellingSignal: Int32? { queue.sync { cancelledBy } }

    private func received(_ number: Int32, engine: Engine) {
        switch number {
        case SIGUSR1:
            engine.suspend()
        case SIGUSR2:
            engine.resume()
        case SIGINT where cancelledBy != nil:
            engine.kill()
        default:
            guard cancelledBy == nil else { return }
            cancelledBy = number
            engine.cancel(reason: number == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)")
        }
    }
}
