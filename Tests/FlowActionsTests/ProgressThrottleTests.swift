import FlowModel
import FlowTestSupport
import Testing

@testable import FlowActions

/// `ProgressThrottle` on the manual clock: what goes out, and when, as the clock is moved.
@Suite struct ProgressThrottleTests {
    struct Sent: Equatable, CustomStringConvertible {
        var done: Int64
        var total: Int64?
        var unit: ProgressUnit

        var description: String { "\(done)/\(total.map(String.init) ?? "?") \(unit.rawValue)" }
    }

    /// A throttle on `clock` that keeps what it sends.
    static func throttle(on clock: ManualRunLoop, unit: ProgressUnit = .bytes) -> (ProgressThrottle, LockedBox<[Sent]>) {
        let sent = LockedBox<[Sent]>([])
        let throttle = ProgressThrottle(clock: clock, unit: unit) { done, total, unit in
            sent.update { $0.append(Sent(done: done, total: total, unit: unit)) }
        }
        return (throttle, sent)
    }

    @Test func theFirstReportGoesOutAtOnceAndTheNextOnlyAfterTheInterval() {
        let clock = ManualRunLoop(now: 5_000)
        let (throttle, sent) = Self.throttle(on: clock)
        let interval = ProgressThrottle.defaultIntervalMilliseconds
        throttle.report(10, 1_000)
        #expect(sent.value == [Sent(done: 10, total: 1_000, unit: .bytes)])
        clock.advance(by: 50)
        throttle.report(20, 1_000)
        clock.advance(by: interval - 51)
        throttle.report(30, 1_000)
        #expect(sent.value.map(\.done) == [10], "held back inside the interval after the first")
        clock.advance(by: 1)
        #expect(sent.value.map(\.done) == [10, 30], "the last one held goes out one interval after the last one sent")
        throttle.report(40, 1_000)
        clock.advance(by: interval - 1)
        throttle.report(50, 1_000)
        #expect(sent.value.map(\.done) == [10, 30])
        clock.advance(by: 1)
        #expect(sent.value.map(\.done) == [10, 30, 50])
    }

    /// A transfer that stalls after a burst (its bytes came within one interval of the last
    /// report sent) showed the report before the burst until it ended: `done: 0` for the 30 s of
    /// a read timeout, with 100,000 bytes received.
    @Test func aReportHeldBackGoesOutWhenItsIntervalEndsThoughNoOtherComes() {
        let clock = ManualRunLoop(now: 1_000)
        let (throttle, sent) = Self.throttle(on: clock)
        let interval = ProgressThrottle.defaultIntervalMilliseconds
        throttle.report(0, 200_000)
        clock.advance(by: 10)
        throttle.report(60_000, 200_000)
        throttle.report(100_000, 200_000)
        clock.advance(by: interval - 11)
        #expect(sent.value.map(\.done) == [0], "not before the interval is over")
        clock.advance(by: 1)
        #expect(sent.value.map(\.done) == [0, 100_000], "what the stalled transfer got")
        clock.advance(by: 30_000)
        #expect(sent.value.map(\.done) == [0, 100_000], "once")
        #expect(clock.armedDeadlines.isEmpty)
    }

    /// Issue 13: at most 10 progress events a second per task, the completing one included,
    /// which goes out at once: no window of one second holds more than ten.
    @Test func noSecondHoldsMoreThanTenReportsTheCompletingOneIncluded() {
        let clock = ManualRunLoop()
        let sent = LockedBox<[Int64]>([])
        let throttle = ProgressThrottle(clock: clock) { _, _, _ in sent.update { $0.append(clock.now) } }
        for step in Int64(1)...3_000 {
            throttle.report(step, 3_000)
            clock.advance(by: 1)
        }
        throttle.end(completed: true)
        let times = sent.value
        #expect(times.last == 2_999, "the completing report went out")
        let busiest = times.map { start in times.filter { $0 >= start && $0 < start + 1_000 }.count }.max() ?? 0
        #expect(busiest <= 10, "\(busiest) reports in one second: \(times)")
    }

    @Test func aReportThatCompletesTheTotalGoesOutAtOnceAndOnlyOnce() {
        let clock = ManualRunLoop()
        let (throttle, sent) = Self.throttle(on: clock, unit: .entries)
        throttle.report(1, 3)
        throttle.report(2, 3)
        throttle.report(3, 3)
        throttle.report(3, 3)
        throttle.end(completed: true)
        #expect(sent.value == [Sent(done: 1, total: 3, unit: .entries), Sent(done: 3, total: 3, unit: .entries)])
    }

    @Test func theLastReportHeldBackIsSentWhenTheAttemptSucceeds() {
        let clock = ManualRunLoop()
        let (throttle, sent) = Self.throttle(on: clock)
        // An unknown total (a pipe, a body with no length): no report completes it.
        for done in Int64(1)...1_000 { throttle.report(done, nil) }
        #expect(sent.value.map(\.done) == [1])
        throttle.end(completed: true)
        #expect(sent.value == [Sent(done: 1, total: nil, unit: .bytes), Sent(done: 1_000, total: nil, unit: .bytes)])
        clock.advance(by: 1_000)
        throttle.report(2_000, nil)
        throttle.end(completed: true)
        #expect(sent.value.count == 2, "nothing once ended")
    }

    @Test func aFailedOrStoppedAttemptSendsNothingMore() {
        let clock = ManualRunLoop()
        let (throttle, sent) = Self.throttle(on: clock)
        throttle.report(1, 10)
        throttle.report(5, 10)
        throttle.end(completed: false)
        clock.advance(by: 500)
        throttle.report(10, 10)
        #expect(sent.value.map(\.done) == [1])
        #expect(clock.armedDeadlines.isEmpty, "the held report's timer went with the attempt")
    }

    @Test func aReportHeldBackIsReplacedByALaterOne() {
        let clock = ManualRunLoop()
        let (throttle, sent) = Self.throttle(on: clock)
        throttle.report(1, 10)
        throttle.report(4, 10)
        throttle.report(6, 10)
        clock.advance(by: ProgressThrottle.defaultIntervalMilliseconds)
        throttle.report(7, 10)
        throttle.report(8, 10)
        throttle.end(completed: true)
        #expect(sent.value.map(\.done) == [1, 6, 8])
    }
}
