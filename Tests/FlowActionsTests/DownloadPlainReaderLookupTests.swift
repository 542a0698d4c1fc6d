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

        init() {
            (began, beginning) = AsyncStream<Void>.makeStream()
        }

        var resolver: HostResolver {
            HostResolver { [self] _, port in
                beginning.yield()
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

    /// Starts `task`; its result comes from the stream.
    static func start(_ task: PlannedTask, runner: DownloadRunner) -> (any RunningAttempt, AsyncStream<AttemptResult>) {
        let (results, result) = AsyncStream<AttemptResult>.makeStream()
        let running = runner.startAttempt(of: task, attempt: 1, events: AttemptEvents(output: { _, _ in }, progress: { _, _, _ in })) { ended in
            result.yield(ended)
            result.finish()
        }
        return (running, results)
    }

    static func first(_ results: AsyncStream<AttemptResult>) async -> AttemptResult? {
        var results = results.makeAsyncIterator()
        return await results.next()
    }

    /// `body` runs the download task of `url` (`http://held.test:PORT/f`, a test server's),
    /// whose lookup `lookup` holds; after it, the attempt must have ended with the lookup still
    /// held, and with no request made and nothing left in the folder.
    static func withHeldLookup(
        connectTimeout: TimeAmount = .seconds(600), _ body: (PlannedTask, DownloadRunner, HeldLookup, String) async throws -> Void
    ) async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        server.route("/f") { _ in .init(body: Runner.bytes(1000)) }
        let lookup = HeldLookup()
        defer { lookup.release() }
        let runner = Self.runner(in: folder, resolver: lookup.resolver, connectTimeout: connectTimeout)
        defer { runner.finishRun() }
        let url = "http://held.test:\(server.port)/f"
        let tasks = try Runner.tasks([("get", "{download: {url: '\(url)', to: f.bin}, retries: 0}")], in: folder)
        try await body(tasks[0], runner, lookup, url)
        #expect(!lookup.isReleased, "the attempt ended while its lookup still hung")
        #expect(server.requests.isEmpty)
        #expect(Runner.folderContents(folder) == [])
    }

    @Test func aStopDuringTheNameLookupEndsTheAttemptCancelledWithoutWaitingForIt() async throws {
        try await Self.withHeldLookup { task, runner, lookup, _ in
            let (running, results) = Self.start(task, runner: runner)
            await lookup.firstLookup()
            running.terminate()
            #expect(await Self.first(results) == .failedAdvising(reason: "cancelled", retryable: false, notBeforeMilliseconds: nil))
        }
    }

    @Test func theConnectTimeoutCountsTheNameLookup() async throws {
        // The lookup hangs until the hang guard: only the connect timeout can end the attempt.
        try await Self.withHeldLookup(connectTimeout: .milliseconds(200)) { task, runner, _, url in
            #expect(await Runner.run(task, runner: runner).result == .failed(reason: "\(url): timed out connecting", exitCode: nil))
        }
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
