import FlowEngine
import FlowPlanning
import FlowTestServer
import Foundation
import NIOCore
import Testing

@testable import FlowActions

/// A plain `http://` download while its host name is looked up: a stop ends it "cancelled" and
/// the connect timeout ends it as a timed-out connect (curl's `--connect-timeout` counts the
/// lookup), both without waiting for a lookup that hangs; a name that does not resolve fails
/// once, in curl's words. The names here are looked up by the test's resolver only: no DNS.
@Suite struct DownloadPlainReaderLookupTests {
    typealias Runner = DownloadRunnerTests

    /// A resolver whose lookups wait until `release()` (or a hang guard's end, which the test
    /// then sees as `releasedBeforeItsEnd`), and say when one began; each answers 127.0.0.1.
    final class HeldLookup: Sendable {
        let began: AsyncStream<Void>
        private let beginning: AsyncStream<Void>.Continuation
        private let gate = DispatchSemaphore(value: 0)
        private let released = LockedBox(false)
        private let whenAsked: @Sendable () -> Void

        /// `whenAsked` runs on the reader's thread as a lookup begins.
        init(whenAsked: @escaping @Sendable () -> Void = {}) {
            (began, beginning) = AsyncStream<Void>.makeStream()
            self.whenAsked = whenAsked
        }

        var resolver: HostResolver {
            HostResolver { [self] _, port in
                beginning.yield()
                whenAsked()
                _ = gate.wait(timeout: .now() + .seconds(60))
                released.update { $0 = true }
                return [try SocketAddress(ipAddress: "127.0.0.1", port: port)]
            }
        }

        func firstLookup() async {
            var lookups = began.makeAsyncIterator()
            _ = await lookups.next()
        }

        var isReleased: Bool { released.value }
        func release() { gate.signal() }
    }

    static func runner(in folder: String, resolver: HostResolver, connectTimeout: TimeAmount = .seconds(600)) -> DownloadRunner {
        var settings = Downloader.Settings()
        settings.connectTimeout = connectTimeout
        settings.resolver = resolver
        var environment = ["FLOWRUN_CACHE_DIR": folder + "/cache"]
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        return DownloadRunner(environment: environment, loop: SerialQueueLoop(), settings: settings)
    }

    /// The running attempt, for a stop sent from the reader's thread (a hook, a resolver),
    /// which may ask before `startAttempt` returned it. Not from the test's async steps: they
    /// share the cooperative threads (one per core) with every other test, which under load
    /// held them for minutes in a whole-suite run (the stop came after the connect had failed
    /// by itself, "Connection timed out", or after the lookup's hang guard).
    final class StopHandle: Sendable {
        private let attempt = LockedBox<(any RunningAttempt)?>(nil)
        private let known = DispatchSemaphore(value: 0)

        func set(_ running: any RunningAttempt) {
            attempt.update { $0 = running }
            known.signal()
        }

        func terminate() {
            known.wait()
            known.signal()
            attempt.value?.terminate()
        }
    }

    /// Runs `task` to its end; `probe` is asked as it ends (on the thread that ends it).
    static func run<Probe: Sendable>(
        _ task: PlannedTask, runner: DownloadRunner, stop: StopHandle, probe: @escaping @Sendable () -> Probe
    ) async -> (AttemptResult, Probe) {
        await withCheckedContinuation { done in
            let events = AttemptEvents(output: { _, _ in }, progress: { _, _, _ in })
            stop.set(runner.startAttempt(of: task, attempt: 1, events: events) { ended in done.resume(returning: (ended, probe())) })
        }
    }

    /// The download task of `http://held.test:PORT/f` (a test server's), its lookup held by a
    /// resolver that stops the attempt as it is asked when `stopsAtLookup`: the result, and
    /// whether the lookup still hung when the attempt ended. No request may have been made, and
    /// nothing be left in the folder.
    static func heldLookupAttempt(
        connectTimeout: TimeAmount = .seconds(600), stopsAtLookup: Bool
    ) async throws -> (
        result: AttemptResult, lookupHung: Bool, url: String
    ) {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        server.route("/f") { _ in .init(body: Runner.bytes(1000)) }
        let stop = StopHandle()
        let lookup = HeldLookup(whenAsked: { if stopsAtLookup { stop.terminate() } })
        defer { lookup.release() }
        let runner = Self.runner(in: folder, resolver: lookup.resolver, connectTimeout: connectTimeout)
        defer { runner.finishRun() }
        let url = "http://held.test:\(server.port)/f"
        let tasks = try Runner.tasks([("get", "{download: {url: '\(url)', to: f.bin}, retries: 0}")], in: folder)
        let (result, lookupHung) = await Self.run(tasks[0], runner: runner, stop: stop) { !lookup.isReleased }
        #expect(server.requests.isEmpty)
        #expect(Runner.folderContents(folder) == [])
        return (result, lookupHung, url)
    }

    @Test func aStopDuringTheNameLookupEndsTheAttemptCancelledWithoutWaitingForIt() async throws {
        let attempt = try await Self.heldLookupAttempt(stopsAtLookup: true)
        #expect(attempt.lookupHung, "the attempt ended while its lookup still hung")
        #expect(attempt.result == .failedAdvising(reason: "cancelled", retryable: false, notBeforeMilliseconds: nil))
    }

    @Test func theConnectTimeoutCountsTheNameLookup() async throws {
        // The lookup hangs until the hang guard: only the connect timeout can end the attempt.
        let attempt = try await Self.heldLookupAttempt(connectTimeout: .milliseconds(200), stopsAtLookup: false)
        #expect(attempt.lookupHung, "the attempt ended while its lookup still hung")
        #expect(attempt.result == .failed(reason: "\(attempt.url): timed out connecting", exitCode: nil))
    }

    @Test func aNameThatDoesNotResolveFailsOnceSayingSo() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lookups = LockedBox<[String]>([])
        let resolver = HostResolver { host, _ in
            lookups.update { $0.append(host) }
            throw HostResolver.Unresolved(host: host, problem: "Name or service not known")
        }
        let runner = Self.runner(in: folder, resolver: resolver)
        defer { runner.finishRun() }
        let url = "http://nowhere.test:8080/f"
        let tasks = try Runner.tasks([("get", "{download: {url: '\(url)', to: f.bin}, retries: 0}")], in: folder)
        let result = await Runner.run(tasks[0], runner: runner).result
        #expect(result == .failed(reason: "\(url): could not resolve host nowhere.test (Name or service not known)", exitCode: nil))
        #expect(lookups.value == ["nowhere.test"])
        #expect(Runner.folderContents(folder) == [])
    }
}
