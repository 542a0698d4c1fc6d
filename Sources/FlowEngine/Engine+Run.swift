import Dispatch
import FlowModel

extension Engine {
    /// Runs every task of the plan, waits on the calling thread until each has its final
    /// event, then lets the sinks write the rest (`EventBus.finish`): the command line's run.
    /// The engine itself waits for nothing; a test drives `start` on a manual loop instead.
    package func run() -> RunStatus {
        let ended = DispatchSemaphore(value: 0)
        start { _ in ended.signal() }
        ended.wait()
        bus.finish()
        return status ?? .cancelled
    }
}
