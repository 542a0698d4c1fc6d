import FlowEngine
import FlowPlanning
import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// Tasks sharing one transfer share only its bytes and its errors: each places the file at its
/// own `to`, and what goes wrong there is its failure alone.
@Suite struct DownloadSharingTests {
    typealias Runner = DownloadRunnerTests

    /// Starts `task` and returns at once; the result comes from the stream.
    static func start(_ task: PlannedTask, runner: DownloadRunner) -> AsyncStream<AttemptResult> {
        let (results, continuation) = AsyncStream<AttemptResult>.makeStream()
        _ = runner.startAttempt(of: task, attempt: 1, events: AttemptEvents(output: { _, _ in }, progress: { _, _, _ in })) { result in
            continuation.yield(result)
            continuation.finish()
        }
        return results
    }

    /// A server whose `/shared` holds its first answer until `release()`, so that a second
    /// task surely joins the first one's transfer while it runs.
    final class HeldServer: Sendable {
        let server: TestHTTPServer
        let arrivals: AsyncStream<Void>
        private let gate = DispatchSemaphore(value: 0)

        init(body: [UInt8]) throws {
            server = try TestHTTPServer()
            let (arrivals, arrived) = AsyncStream<Void>.makeStream()
            self.arrivals = arrivals
            let gate = gate
            let server = server
            server.route("/shared") { _ in
                if server.requestCount("/shared") == 1 {
                    arrived.yield()
                    gate.wait()
                }
                return .init(body: body)
            }
        }

        func firstArrival() async {
            var arrivals = arrivals.makeAsyncIterator()
            _ = await arrivals.next()
        }

        func release() { gate.signal() }
        var url: String { server.baseURL + "/shared" }
    }

    /// A runner whose read timeout is a hang guard only: the held request waits for this test
    /// to start the second task and `release()`, and the test's async steps share the test
    /// process's cooperative threads (one per core) with every other test, which other tests
    /// hold for long stretches under load (both were seen waiting for python in
    /// `DecompressFixtures.run`). Past the default 30 s the first transfer would fail, and the
    /// waiting task would transfer again: a second request.
    static func runner(in folder: String) -> DownloadRunner {
        Runner.runner(in: folder, readTimeout: 600)
    }

    @Test func aLeadingTaskWhoseToIsAFolderFailsAloneAndTheWaitingTaskGetsTheFile() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let body = Runner.bytes(300_000)
        let held = try HeldServer(body: body)
        defer { held.server.shutdown() }
        try FileManager.default.createDirectory(atPath: folder + "/taken", withIntermediateDirectories: false)
        let runner = Self.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [("one", "{download: {url: '\(held.url)', to: taken}}"), ("two", "{download: {url: '\(held.url)', to: two.bin}}")], in: folder)
        async let one = Runner.run(tasks[0], runner: runner)
        await held.firstArrival()
        let two = Self.start(tasks[1], runner: runner)
        held.release()
        guard case .failedAdvising(let reason, let retryable, _) = await one.result else { Issue.record("the folder was replaced"); return }
        // `to` alone, as curl names its -o: the temporary file was named, and gone.
        #expect(reason == "cannot write \(folder)/taken: Is a directory" && !retryable, "\(reason)")
        var twoResults = two.makeAsyncIterator()
        #expect(await twoResults.next() == .succeeded)
        #expect(Runner.contents(folder + "/two.bin").map { $0 == body } == true)
        #expect(held.server.requestCount("/shared") == 1)
        #expect(Runner.folderContents(folder) == ["taken", "two.bin"])
        #expect(Runner.folderContents(folder + "/taken") == [])
    }

    @Test func aWaitingTaskWhoseToIsAFolderFailsAloneWithoutAnotherRequest() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let body = Runner.bytes(300_000)
        let held = try HeldServer(body: body)
        defer { held.server.shutdown() }
        try FileManager.default.createDirectory(atPath: folder + "/taken", withIntermediateDirectories: false)
        let runner = Self.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [("one", "{download: {url: '\(held.url)', to: one.bin}}"), ("two", "{download: {url: '\(held.url)', to: taken}}")], in: folder)
        async let one = Runner.run(tasks[0], runner: runner)
        await held.firstArrival()
        let two = Self.start(tasks[1], runner: runner)
        held.release()
        #expect(await one.result == .succeeded)
        var twoResults = two.makeAsyncIterator()
        guard case .failedAdvising(let reason, _, _) = await twoResults.next() else { Issue.record("the folder was replaced"); return }
        #expect(reason.contains("\(folder)/taken"), "\(reason)")
        #expect(Runner.contents(folder + "/one.bin").map { $0 == body } == true)
        #expect(held.server.requestCount("/shared") == 1)
        #expect(Runner.folderContents(folder) == ["one.bin", "taken"])
    }
}
