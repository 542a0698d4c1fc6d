import FlowModel
import Foundation
import Testing

@testable import FlowEngine

/// Ctrl-C while the up-to-date check of a task walks a large input tree: the check runs under
/// the engine's lock, so the cancel must reach it (`TaskGate.stopChecks()`) before it waits for
/// that lock, and the task whose check it cut short must not start.
@Suite struct CancelDuringGateTests {
    let terminated = "terminated (SIGTERM)"

    /// A gate whose first check is a walk that goes on until `stopChecks()` (or, should the
    /// cancel never reach it, a minute): meanwhile another thread cancels the run, as the
    /// signal thread does.
    final class WalkingGate: TaskGate, @unchecked Sendable {
        weak var engine: Engine?
        let reason: String
        private let stopped = DispatchSemaphore(value: 0)
        let cancelReturned = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var asked = 0
        private var stopSeen = false

        init(reason: String) { self.reason = reason }

        var sawStop: Bool { lock.withLock { stopSeen } }

        func skipReason(for task: Int) -> String? {
            let first = lock.withLock {
                asked += 1
                return asked == 1
            }
            guard first, let engine else { return nil }
            let reason = reason
            let cancelReturned = cancelReturned
            Thread.detachNewThread {
                // As the signal thread does: it asks first whether the run is over.
                guard !engine.isOver else { return }
                engine.cancel(reason: reason)
                cancelReturned.signal()
            }
            // The walk: it ends when told to stop. The ten minutes only bound a test that fails
            // (a minute was a condition: the cancel's thread can wait that long on a loaded machine).
            let seen = stopped.wait(timeout: .now() + 600) == .success
            lock.withLock { stopSeen = seen }
            return nil  // a walk cut short: no reason to skip
        }

        func stopChecks() {
            stopped.signal()
        }

        func taskSucceeded(_ task: Int) {}
    }

    @Test func aCancelStopsTheCheckUnderWayAndThatTaskNeverStarts() throws {
        let gate = WalkingGate(reason: terminated)
        let h = try EngineHarness(
            """
            version: 1
            concurrency: 1
            tasks:
              big: {shell: x, inputs: ['big/**']}
              deploy: {shell: x, needs: [big]}
              tidy: {shell: x, needs: [big], when: always}
            """, gate: gate)
        gate.engine = h.engine
        h.start()
        gate.cancelReturned.wait()
        h.loop.runPosted()
        #expect(gate.sawStop, "the cancel reached the check under way")
        #expect(!h.started.contains("big"), "a task whose check was cut short by the cancel does not start")
        #expect(h.finalEvent(of: "big") == .taskCancelled(task: "big", reason: terminated))
        #expect(h.finalEvent(of: "deploy") == .taskSkipped(task: "deploy", reason: terminated))
        #expect(h.started == ["tidy"], "cleanup still runs")
        try h.end("tidy")
        #expect(h.finished == [.cancelled])
    }
}
