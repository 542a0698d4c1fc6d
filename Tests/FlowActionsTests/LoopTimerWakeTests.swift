import FlowActions
import FlowEngine
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The loop is woken for a timer set from another thread only when it would otherwise wait
/// past it: a timer due sooner than the one the loop waits for fires first, one due later
/// waits its turn. Timed by order, not by the clock: the far timer is an hour away (the
/// waits for the near one give up after two minutes only so that a loop that slept through
/// it fails the test rather than hanging the suite).
@Suite struct LoopTimerWakeTests {
    /// Sets a far timer on the loop, then, twenty times over, a near one from another thread,
    /// each once the one before has fired (the loop has gone back to waiting for the far one by
    /// then, or is about to); returns the timers in the order they fired. The far one is
    /// cancelled at the end, so the test never waits for it.
    static func firingOrder(laterAlso: Bool) -> [String] {
        let loop = OutputLoop()
        defer { loop.end() }
        let fired = NIOLockedValueBox<[String]>([])
        let far = loop.schedule(at: loop.now + 3_600_000) { fired.withLockedValue { $0.append("far") } }
        defer { loop.cancel(far) }
        for _ in 0..<20 {
            if laterAlso {
                // Due after the far one: no wake-up needed, and it must not fire before it.
                let later = loop.schedule(at: loop.now + 7_200_000) { fired.withLockedValue { $0.append("later") } }
                defer { loop.cancel(later) }
            }
            let nearFired = DispatchSemaphore(value: 0)
            _ = loop.schedule(at: loop.now + 1) {
                fired.withLockedValue { $0.append("near") }
                nearFired.signal()
            }
            if nearFired.wait(timeout: .now() + 120) == .timedOut { return ["slept through a near timer"] }
        }
        return fired.withLockedValue { $0 }
    }

    @Test func aTimerSetFromAnotherThreadSoonerThanTheOneWaitedForFiresFirst() {
        #expect(Self.firingOrder(laterAlso: false) == Array(repeating: "near", count: 20))
    }

    @Test func aLaterTimerSetMeanwhileLeavesTheSoonerOneOnTime() {
        #expect(Self.firingOrder(laterAlso: true) == Array(repeating: "near", count: 20))
    }

    /// A timer set while the loop waits with no timer at all (for a descriptor only) wakes it.
    @Test func aTimerSetWhileTheLoopWaitsForNoTimerFires() {
        let loop = OutputLoop()
        defer { loop.end() }
        let turned = DispatchSemaphore(value: 0)
        loop.post { turned.signal() }
        turned.wait()
        let fired = DispatchSemaphore(value: 0)
        _ = loop.schedule(at: loop.now + 1) { fired.signal() }
        #expect(fired.wait(timeout: .now() + 120) == .success)
    }
}
