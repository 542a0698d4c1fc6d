import FlowModel
import Testing

@testable import FlowEngine

// The attempt machine driven by hand, one input at a time, asserting the exact actions it returns.

private typealias Action = AttemptMachine.Action

private func machine(retries: Int = 0, delay: Int64 = 1_000, timeout: Int64? = nil, grace: Int64 = 10_000) -> AttemptMachine {
    AttemptMachine(
        policy: .init(
            retries: retries, retryDelay: TimeSpan(milliseconds: delay),
            timeout: timeout.map { TimeSpan(milliseconds: $0) }, graceMilliseconds: grace),
        jitter: { 1 })
}

@Suite struct AttemptMachineTests {
    @Test func aTimeoutAsksTheAttemptToStopThenKillsItAfterTheGrace() {
        var m = machine(timeout: 5_000, grace: 2_000)
        #expect(m.handle(.start, now: 0) == [.arm(.timeout(attempt: 1), at: 5_000), .startAttempt(1)])
        #expect(
            m.handle(.timerFired(.timeout(attempt: 1)), now: 5_000)
                == [.terminate(attempt: 1), .arm(.grace(attempt: 1), at: 7_000)])
        #expect(m.handle(.timerFired(.grace(attempt: 1)), now: 7_000) == [.forceKill(attempt: 1)])
        #expect(
            m.handle(.attemptEnded(attempt: 1, .failed(reason: "killed by signal SIGKILL (9)", exitCode: nil)), now: 7_001)
                == [
                    .disarm(.timeout(attempt: 1)), .disarm(.grace(attempt: 1)),
                    .end(.failed(attempts: 1, durationMilliseconds: 7_001, reason: "timed out after 5s", exitCode: nil)),
                ])
    }

    @Test func aFailedAttemptWithRetriesLeftBacksOffThenStartsTheNext() {
        var m = machine(retries: 1, delay: 500)
        _ = m.handle(.start, now: 0)
        #expect(
            m.handle(.attemptEnded(attempt: 1, .failed(reason: "exited with status 2", exitCode: 2)), now: 10)
                == [.retrying(attempt: 1, delayMilliseconds: 500, reason: "exited with status 2", exitCode: 2), .arm(.backoff(attempt: 1), at: 510)])
        #expect(m.handle(.timerFired(.backoff(attempt: 1)), now: 510) == [.started(attempt: 2), .startAttempt(2)])
        #expect(
            m.handle(.attemptEnded(attempt: 2, .failed(reason: "exited with status 2", exitCode: 2)), now: 600)
                == [.end(.failed(attempts: 2, durationMilliseconds: 600, reason: "exited with status 2", exitCode: 2))])
    }

    @Test func staleTimersAndLateEndsChangeNothing() {
        var m = machine(retries: 1, timeout: 1_000)
        _ = m.handle(.start, now: 0)
        _ = m.handle(.attemptEnded(attempt: 1, .succeeded), now: 10)
        #expect(m.hasEnded)
        #expect(m.handle(.timerFired(.timeout(attempt: 1)), now: 1_000) == [])
        #expect(m.handle(.attemptEnded(attempt: 1, .succeeded), now: 1_001) == [])
        #expect(m.handle(.cancel(reason: "interrupted"), now: 1_002) == [])
    }

    @Test func cancelStopsTheAttemptOnceAndItsEndIsACancel() {
        var m = machine(grace: 3_000)
        _ = m.handle(.start, now: 0)
        #expect(m.handle(.cancel(reason: "terminated"), now: 100) == [.terminate(attempt: 1), .arm(.grace(attempt: 1), at: 3_100)])
        #expect(m.handle(.cancel(reason: "terminated"), now: 200) == [])
        #expect(
            m.handle(.attemptEnded(attempt: 1, .succeeded), now: 300)
                == [.disarm(.grace(attempt: 1)), .end(.cancelled(reason: "terminated"))])
    }

    @Test func aFailureThatCannotBeRetriedEndsTheTaskWithRetriesLeft() {
        var m = machine(retries: 3)
        _ = m.handle(.start, now: 0)
        #expect(
            m.handle(.attemptEnded(attempt: 1, .failedAdvising(reason: "HTTP 404 Not Found", retryable: false, notBeforeMilliseconds: nil)), now: 50)
                == [.end(.failed(attempts: 1, durationMilliseconds: 50, reason: "HTTP 404 Not Found", exitCode: nil))])
    }

    /// A Retry-After longer than the task's timeout is not waited for (it was, up to an hour):
    /// the task fails at once saying why, as curl gives up past --retry-max-time. One within
    /// the timeout is waited for as before.
    @Test func aRetryAfterLongerThanTheTimeoutEndsTheRetriesAtOnce() {
        var m = machine(retries: 3, delay: 1_000, timeout: 600_000)
        _ = m.handle(.start, now: 0)
        #expect(
            m.handle(.attemptEnded(attempt: 1, .failedAdvising(reason: "HTTP 503", retryable: true, notBeforeMilliseconds: 600_000)), now: 10)
                == [
                    .disarm(.timeout(attempt: 1)), .retrying(attempt: 1, delayMilliseconds: 600_000, reason: "HTTP 503"),
                    .arm(.backoff(attempt: 1), at: 600_010),
                ])
        _ = m.handle(.timerFired(.backoff(attempt: 1)), now: 600_010)
        #expect(
            m.handle(.attemptEnded(attempt: 2, .failedAdvising(reason: "HTTP 503", retryable: true, notBeforeMilliseconds: 10_800_000)), now: 600_020)
                == [
                    .disarm(.timeout(attempt: 2)),
                    .end(
                        .failed(
                            attempts: 2, durationMilliseconds: 600_020,
                            reason: "HTTP 503; not retried: the server's Retry-After (3h) is longer than the task's timeout (10m)", exitCode: nil)),
                ])
    }

    @Test func retryAfterLengthensAShorterBackOffButNeverShortensIt() {
        var m = machine(retries: 2, delay: 1_000)
        _ = m.handle(.start, now: 0)
        #expect(
            m.handle(.attemptEnded(attempt: 1, .failedAdvising(reason: "HTTP 503", retryable: true, notBeforeMilliseconds: 7_000)), now: 10)
                == [.retrying(attempt: 1, delayMilliseconds: 7_000, reason: "HTTP 503"), .arm(.backoff(attempt: 1), at: 7_010)])
        _ = m.handle(.timerFired(.backoff(attempt: 1)), now: 7_010)
        #expect(
            m.handle(.attemptEnded(attempt: 2, .failedAdvising(reason: "HTTP 503", retryable: true, notBeforeMilliseconds: 500)), now: 7_020)
                == [.retrying(attempt: 2, delayMilliseconds: 2_000, reason: "HTTP 503"), .arm(.backoff(attempt: 2), at: 9_020)])
    }
}
