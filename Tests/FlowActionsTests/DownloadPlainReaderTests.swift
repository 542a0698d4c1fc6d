import FlowTestServer
import Foundation
import Glibc
import Testing

@testable import FlowActions

/// Plain `http://` downloads with no proxy, which flowrun reads itself (`PlainHTTPReader`):
/// kept-alive connections, host names, and each framing the reader leaves to NIO's decoder.
/// The rest (statuses, redirects, resume, timeouts, cancel) is in `DownloadRunnerTests` and
/// its neighbours, which now go through the reader too.
@Suite struct DownloadPlainReaderTests {
    typealias Runner = DownloadRunnerTests

    @Test func downloadsOneAfterAnotherShareOneKeptAliveConnection() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(600_000)
        let names = ["a", "b", "c", "d"]
        for name in names { server.route("/\(name)") { _ in .init(body: body) } }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(names.map { ($0, "{download: {url: '\(server.baseURL)/\($0)', to: \($0).bin}}") }, in: folder)
        for (index, name) in names.enumerated() {
            #expect(await Runner.run(tasks[index], runner: runner).result == .succeeded)
            #expect(Runner.contents(folder + "/\(name).bin") == body)
        }
        // The connection is back among the kept-alive ones before a download's end is reported.
        #expect(server.requests.map(\.reusedConnection) == [false, true, true, true])
    }

    @Test func aKeptAliveConnectionTheServerClosedIsRetriedOnceOnAFreshOne() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer(dropsReusedConnections: true)
        defer { server.shutdown() }
        let first = Runner.bytes(10_000, seed: 1), second = Runner.bytes(20_000, seed: 2)
        server.route("/first") { _ in .init(body: first) }
        server.route("/second") { _ in .init(body: second) }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [
                ("first", "{download: {url: '\(server.baseURL)/first', to: first.bin}}"),
                ("second", "{download: {url: '\(server.baseURL)/second', to: second.bin}, retries: 0}"),
            ], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        #expect(await Runner.run(tasks[1], runner: runner).result == .succeeded)
        #expect(Runner.contents(folder + "/second.bin") == second)
        // Sent on the kept-alive connection, closed unanswered, then sent on a new one.
        #expect(server.requests.filter { $0.path == "/second" }.map(\.reusedConnection) == [true, false])
    }

    @Test func aHostNameIsResolvedAndNamedInTheHostHeader() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(50_000)
        server.route("/file") { _ in .init(body: body) }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        // `localhost` may resolve to ::1 first, where nothing listens: the next address answers.
        let tasks = try Runner.tasks([("get", "{download: {url: 'http://localhost:\(server.port)/file?x=1', to: f.bin}}")], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Runner.contents(folder + "/f.bin") == body)
        let request = try #require(server.requests.first)
        #expect(request.target == "/file?x=1")
        #expect(request.headers.map { $0.0.lowercased() } == ["host"])
        #expect(request.header("Host") == "localhost:\(server.port)")
    }

    @Test func aChunkedBodyOfSeveralBlocksArrivesWhole() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(3 * DirectWrites.blockSize + 12_345)
        server.route("/chunked") { _ in
            var response = TestHTTPServer.Response(body: body)
            response.omitsLength = true
            return response
        }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: '\(server.baseURL)/chunked', to: c.bin}}")], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Runner.contents(folder + "/c.bin") == body)
    }

    @Test func aChunkedBodyCutByTheCloseFailsAsCut() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        server.route("/cut") { _ in
            var response = TestHTTPServer.Response()
            response.raw = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n".utf8)
            return response
        }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: '\(server.baseURL)/cut', to: c.bin}, retries: 0}")], in: folder)
        let result = await Runner.run(tasks[0], runner: runner).result
        #expect(result == .failed(reason: "\(server.baseURL)/cut: the connection closed before the body's end, after 5 bytes", exitCode: nil))
        #expect(Runner.folderContents(folder) == [])
    }

    @Test func aBodyThatRunsToTheCloseIsTakenWhole() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(70_000)
        server.route("/old") { _ in
            var response = TestHTTPServer.Response()
            response.raw = Array("HTTP/1.0 200 OK\r\n\r\n".utf8) + body
            return response
        }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: '\(server.baseURL)/old', to: o.bin}, retries: 0}")], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Runner.contents(folder + "/o.bin") == body)
    }

    @Test func aContentLengthBodyCutByTheCloseSaysHowFarItCame() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        server.route("/cut") { _ in
            var response = TestHTTPServer.Response(body: Runner.bytes(900_000))
            response.closeAfter = 600_000
            return response
        }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: '\(server.baseURL)/cut', to: c.bin}, retries: 0}")], in: folder)
        let result = await Runner.run(tasks[0], runner: runner).result
        #expect(result == .failed(reason: "\(server.baseURL)/cut: the connection closed after 600000 of 900000 bytes", exitCode: nil))
    }

    /// A stop's `shutdown()` ends a body that runs to the close as the close would: the
    /// download must still end "cancelled", not whole with the bytes that came (a `timeout:`
    /// then keeps them for the retry to resume, as for a cut body).
    @Test func aStopDuringABodyThatRunsToTheCloseEndsItCancelledNotWhole() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // An HTTP/1.0 answer with no length: 1000 bytes, then nothing while the test runs.
        let server = try StalledServer(answer: Array("HTTP/1.0 200 OK\r\nETag: \"c\"\r\n\r\n".utf8) + Runner.bytes(1000))
        defer { server.stop() }
        let downloader = Downloader(environment: [:])
        defer { downloader.shutdown() }
        let file = try PartialFile(destination: folder + "/c.bin", withSHA256: false)
        defer { file.queue.sync { file.remove() } }
        // Stopped from the progress report of the first bytes, on the reader's side: the test's
        // async steps may wait minutes for a cooperative thread under load (StopHandle).
        let attempt = LockedBox<HTTPAttempt?>(nil)
        let known = DispatchSemaphore(value: 0)
        let result: Result<Void, ActionFailure> = await withCheckedContinuation { done in
            let progress: @Sendable (Int64, Int64?) -> Void = { count, _ in
                guard count > 0 else { return }
                known.wait()
                known.signal()
                attempt.value?.cancel()
            }
            attempt.update {
                $0 = downloader.fetch("http://127.0.0.1:\(server.port)/c", headers: [], into: file, progress: progress) { done.resume(returning: $0) }
            }
            known.signal()
        }
        #expect(throws: ActionFailure.self) { try result.get() }
        if case .failure(let failure) = result { #expect(failure.reason.hasSuffix("cancelled")) }
    }

    /// One connection's listener on 127.0.0.1 that sends `answer` once the request came, then
    /// holds the connection open until `stop()`.
    final class StalledServer: Sendable {
        let port: Int
        private let listener: Int32
        private let stopped = DispatchSemaphore(value: 0)
        private let ended = DispatchSemaphore(value: 0)

        init(answer: [UInt8]) throws {
            listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let listener = listener
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
            }
            try #require(bound && listen(listener, 1) == 0)
            port = Int(UInt16(bigEndian: address.sin_port))
            let (stopped, ended) = (stopped, ended)
            Thread.detachNewThread {
                let connection = accept(listener, nil, nil)
                var request = [UInt8](repeating: 0, count: 4096)
                if connection >= 0, recv(connection, &request, request.count, 0) > 0 {
                    _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    stopped.wait()
                }
                if connection >= 0 { close(connection) }
                ended.signal()
            }
        }

        func stop() {
            stopped.signal()
            Glibc.shutdown(listener, Int32(SHUT_RDWR))  // wakes an accept still waiting
            ended.wait()
            close(listener)
        }
    }
}
