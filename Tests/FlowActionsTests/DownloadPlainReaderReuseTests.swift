import FlowEngine
import FlowTestServer
import Foundation
import Glibc
import NIOCore
import Testing

@testable import FlowActions

/// `PlainHTTPReader` as curl's users expect of a kept-alive connection: reused after an empty
/// answer, never after the server asked to close it, never across hosts or ports; and a stop
/// while the connection is still being made ends the attempt at once.
@Suite struct DownloadPlainReaderReuseTests {
    typealias Runner = DownloadRunnerTests

    @Test func aNoContentAnswerLeavesItsConnectionForTheNextDownload() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(100_000)
        server.route("/empty") { _ in .init(status: 204) }
        server.route("/full") { _ in .init(body: body) }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [
                ("empty", "{download: {url: '\(server.baseURL)/empty', to: e.bin}, retries: 0}"),
                ("full", "{download: {url: '\(server.baseURL)/full', to: f.bin}, retries: 0}"),
            ], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Runner.contents(folder + "/e.bin") == [])
        #expect(await Runner.run(tasks[1], runner: runner).result == .succeeded)
        #expect(Runner.contents(folder + "/f.bin") == body)
        #expect(server.requests.map(\.reusedConnection) == [false, true])
    }

    @Test func aConnectionTheServerAskedToCloseCarriesNoOtherRequest() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let first = Runner.bytes(30_000, seed: 1), second = Runner.bytes(40_000, seed: 2)
        server.route("/first") { _ in .init(headers: [("Connection", "close")], body: first) }
        server.route("/second") { _ in .init(body: second) }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [
                ("first", "{download: {url: '\(server.baseURL)/first', to: a.bin}, retries: 0}"),
                ("second", "{download: {url: '\(server.baseURL)/second', to: b.bin}, retries: 0}"),
            ], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        #expect(await Runner.run(tasks[1], runner: runner).result == .succeeded)
        #expect(Runner.contents(folder + "/a.bin") == first)
        #expect(Runner.contents(folder + "/b.bin") == second)
        #expect(server.requests.map(\.reusedConnection) == [false, false])
    }

    @Test func aRedirectToAnotherPortGoesThereNamingThatPortAndTheFirstHostIsAskedAgainAlike() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let origin = try TestHTTPServer(), other = try TestHTTPServer()
        defer {
            origin.shutdown()
            other.shutdown()
        }
        let moved = Runner.bytes(50_000, seed: 3), again = Runner.bytes(60_000, seed: 4)
        origin.route("/go") { _ in .init(status: 302, headers: [("Location", "\(other.baseURL)/file")], body: Array("see there".utf8)) }
        origin.route("/again") { _ in .init(body: again) }
        other.route("/file") { _ in .init(body: moved) }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [
                ("go", "{download: {url: '\(origin.baseURL)/go', to: moved.bin}, retries: 0}"),
                ("again", "{download: {url: '\(origin.baseURL)/again', to: again.bin}, retries: 0}"),
            ], in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        #expect(await Runner.run(tasks[1], runner: runner).result == .succeeded)
        #expect(Runner.contents(folder + "/moved.bin") == moved)
        #expect(Runner.contents(folder + "/again.bin") == again)
        #expect(origin.requests.map(\.path) == ["/go", "/again"])
        #expect(other.requests.map(\.path) == ["/file"])
        #expect(other.requests.first?.header("Host") == "127.0.0.1:\(other.port)")
        #expect(origin.requests.last?.header("Host") == "127.0.0.1:\(origin.port)")
    }

    @Test func aStopWhileTheConnectionIsBeingMadeEndsTheAttemptCancelled() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A listener whose accept queue is full drops the next SYN: that connect waits for an
        // answer, here for longer than the test (no connect timeout comes first).
        let (listener, filler, port) = try Self.fullListener()
        defer {
            close(filler)
            close(listener)
        }
        // The reader says when its connect waits: the stop goes then, from the reader's thread
        // (`StopHandle`), and the socket's TCP state is noted.
        let stop = DownloadPlainReaderLookupTests.StopHandle()
        let state = LockedBox<UInt8?>(nil)
        var settings = Downloader.Settings()
        settings.connectTimeout = .seconds(600)
        settings.connectWaits = { descriptor in
            state.update { $0 = Self.tcpState(descriptor) }
            stop.terminate()
        }
        var environment = ["FLOWRUN_CACHE_DIR": folder + "/cache"]
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        let runner = DownloadRunner(environment: environment, loop: SerialQueueLoop(), settings: settings)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: 'http://127.0.0.1:\(port)/f', to: f.bin}, retries: 0}")], in: folder)
        let (result, _) = await DownloadPlainReaderLookupTests.run(tasks[0], runner: runner, stop: stop) { () }
        #expect(state.value == UInt8(TCP_SYN_SENT), "the stop came while the SYN waited for its answer")
        #expect(result == .failedAdvising(reason: "cancelled", retryable: false, notBeforeMilliseconds: nil))
        #expect(Runner.folderContents(folder) == [])
    }

    /// A listener on 127.0.0.1 with a backlog of 0 and one connection waiting in it (`filler`).
    static func fullListener() throws -> (listener: Int32, filler: Int32, port: Int) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        try #require(bound && listen(listener, 0) == 0)
        let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        try #require(connected)
        // Full once the filler is in the accept queue (readable listener), not merely once the
        // filler's connect returned: its last ACK may still be on its way.
        var queued = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        try #require(poll(&queued, 1, 60_000) == 1)
        return (listener, filler, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A socket's TCP state (`TCP_INFO`'s `tcpi_state`).
    static func tcpState(_ descriptor: Int32) -> UInt8 {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return 0 }
        return info.tcpi_state
    }
}
