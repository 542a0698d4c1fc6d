import Foundation
import FlowEngine

import Glibc

/// Turns signals into engine calls for the length of a run (ARCHITECTURE.md, trap 4).
///
/// SIGINT or SIGTERM cancels the run, and a second SIGINT kills what is still running; SIGUSR1
/// suspends the queues and SIGUSR2 resumes them.
///
/// `blockSignals()` runs first, while the process has one thread, so that every thread blocks
/// them; one thread of ours then takes them with `sigwait`. A blocked signal stays pending, so
/// none is lost, however early it comes. (Dispatch signal sources were tried first: on Linux
/// they lost a Ctrl-C sent in the first milliseconds of a run, and libdispatch crashed when a
/// source was released at the end of one.) Children get an empty signal mask and default
/// dispositions back at spawn. SIGPIPE is ignored so that a closed stdout shows up as a write
/// error, not a death.
///
/// - Warning: `cancelledBy` is guarded by `lock`.
final class RunSignals: @unchecked Sendable {
    static let handled = [SIGINT, SIGTERM, SIGUSR1, SIGUSR2]
    private let lock = NSLock()
    private var cancelledBy: Int32?

    /// Blocks the handled signals in the calling thread and every thread created after it, and
    /// SIGCHLD, which nothing waits for: a child's exit is signalled to the thread that spawned
    /// it, a dispatch worker that blocks it, and so to any thread that does not; before, every
    /// exit woke the main thread to throw the signal away (a context switch per task; pidfds
    /// tell of exits). Blocked, not ignored: ignoring SIGCHLD would lose exit statuses.
    static func blockSignals() {
        var set = handledSet()
        sigaddset(&set, SIGCHLD)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    private static func handledSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handled { sigaddset(&set, number) }
        return set
    }

    /// Starts the thread that waits for signals; it lives until the process exits.
    init(engine: Engine) {
        signal(SIGPIPE, SIG_IGN)
        let thread = Thread { [self] in
            var set = Self.handledSet()
            while true {
                var number: Int32 = 0
                guard sigwait(&set, &number) == 0 else { continue }
                received(number, engine: engine)
            }
        }
        thread.name = "flowrun.signals"
        thread.start()
    }

    /// The signal that cancelled the run (SIGINT or SIGTERM), if one did.
    var cancellingSignal: Int32? { lock.withLock { cancelledBy } }

    private func received(_ number: Int32, engine: Engine) {
        switch number {
        case SIGUSR1:
            engine.suspend()
        case SIGUSR2:
            engine.resume()
        default:
            let first: Bool = lock.withLock {
                guard cancelledBy == nil else { return false }
                cancelledBy = number
                return true
            }
            if first {
                engine.cancel(reason: number == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)")
            } else if number == SIGINT {
                engine.kill()
            }
        }
    }
}
