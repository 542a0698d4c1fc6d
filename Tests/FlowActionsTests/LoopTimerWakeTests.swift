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
    /// Sets a far timer on the loop, lets it start waiting for it, then sets `near` from another
    /// thread; returns the order in which the timers fired (the far one is cancelled once the
    /// near one has fired, so the test never waits for it).
    static func firingOrder(nearIn milliseconds: Int64, laterAlso: Bool) -> [String] {
        let loop = OutputLoop()
        defer { loop.end() }
        let fired = NIOLockedValueBox<[String]>([])
        let nearFired = DispatchSemaphore(value: 0)
        let far = loop.schedule(at: loop.now + 3_600_000) { fired.withLockedValue { $0.append("far") } }
        // A turn on the loop after the far timer was set: it now waits for it.
        let turned = DispatchSemaphore(value: 0)
        loop.post { turned.signal() }
        turned.wait()
        if laterAlso {
            // Due after the far one: no wake-up needed, and it must not fire before it.
            _ = loop.schedule(at: loop.now + 7_200_000) { fired.withLockedValue { $0.append("later") } }
        }
        _ = loop.schedule(at: loop.now + milliseconds) {
            fired.withLockedValue { $0.append("near") }
            nearFired.signal()
        }
        let near = nearFired.wait(timeout: .now() + 120)
        loop.cancel(far)
        if near == .timedOut { return ["slept through the near timer"] }
        return fired.withLockedValue { $0 }
    }

    @Test func aTimerSetFromAnotherThreadSoonerThanTheOneWaitedForFiresFirst() {
        #expect(Self.firingOrder(nearIn: 1, laterAlso: false) == ["near"])
    }

    @Test func aLaterTimerSetMeanwhileLeavesTheSoonerOneOnTime() {
        #expect(Self.firingOrder(nearIn: 1, laterAlso: true) == ["near"])
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
