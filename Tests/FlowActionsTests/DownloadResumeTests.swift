import FlowEngine
import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// A retry resumes only where the server's 206 continues the kept bytes: otherwise the attempt
/// starts over from byte 0, once, and never splices two versions of a file.
@Suite struct DownloadResumeTests {
    typealias Runner = DownloadRunnerTests

    /// How the file and the server change between the first attempt, whose body ends early,
    /// and the retry, whose 206 does not continue it.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var firstHeaders: [(String, String)]
        var laterHeaders: [(String, String)]
        /// The file as the retry finds it.
        var later: [UInt8]
        var fault: TestHTTPServer.RangeFault?
        var testDescription: String { name }
    }

    static let old = Runner.bytes(300_000, seed: 1)

    enum Asked: Equatable { case resumed, other(String) }

    /// The Range of each request: `.resumed` for `bytes=N-` past byte 0 (N is as much of the
    /// broken-off body as arrived).
    static func ranges(_ server: TestHTTPServer) -> [Asked?] {
        server.requests.map { request in
            guard let range = request.header("Range") else { return nil }
            guard range.hasPrefix("bytes="), range.hasSuffix("-"), let start = Int(range.dropFirst(6).dropLast()), start > 0 else {
                return .other(range)
            }
            return .resumed
        }
    }

    static let cases: [Case] = [
        Case(
            name: "a 206 with a changed ETag", firstHeaders: [("ETag", "\"v1\"")], laterHeaders: [("ETag", "\"v1\"")],
            later: Runner.bytes(300_000, seed: 2), fault: .etag("\"v2\"")),
        Case(
            name: "a 206 with a changed Last-Modified", firstHeaders: [("Last-Modified", "Mon, 02 Mar 2026 10:00:00 GMT")],
            laterHeaders: [("Last-Modified", "Mon, 02 Mar 2026 10:00:00 GMT")], later: Runner.bytes(300_000, seed: 3),
            fault: .lastModified("Tue, 03 Mar 2026 10:00:00 GMT")),
        Case(
            name: "a 206 whose total is *", firstHeaders: [("ETag", "\"same\"")], laterHeaders: [("ETag", "\"same\"")],
            later: Runner.bytes(420_000, seed: 4), fault: .unknownTotal),
        Case(
            name: "a 206 for a file of another length", firstHeaders: [("ETag", "\"same\"")], laterHeaders: [("ETag", "\"same\"")],
            later: Runner.bytes(360_000, seed: 5), fault: nil),
        Case(
            name: "a 206 at another offset", firstHeaders: [("ETag", "\"v1\"")], laterHeaders: [("ETag", "\"v1\"")], later: old,
            fault: .offset(1000)),
    ]

    @Test(arguments: cases) func aRetryThatWouldSpliceStartsOverFromZero(_ change: Case) async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        server.route("/file") { _ in
            // The first answer stalls after 100 000 bytes until the read timeout; the retry finds
            // the file changed. (A server closing the connection at once would leave no bytes:
            // the client drops what it had not yet handed on.)
            let first = server.requestCount("/file") == 1
            var response = TestHTTPServer.Response(headers: first ? change.firstHeaders : change.laterHeaders, body: first ? Self.old : change.later)
            response.servesRanges = true
            response.rangeFault = change.fault
            if first { response.stallAfter = 100_000 }
            return response
        }
        let runner = Runner.runner(in: folder, readTimeout: Runner.stallReadTimeout)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: '\(server.baseURL)/file', to: f.bin}, retries: 1}")], in: folder)
        let first = await Runner.run(tasks[0], runner: runner, attempt: 1)
        #expect(first.result != .succeeded)
        let second = await Runner.run(tasks[0], runner: runner, attempt: 2)
        #expect(second.result == .succeeded)
        #expect(Runner.contents(folder + "/f.bin").map { $0 == change.later } == true, "the file as the server has it now, not two versions spliced")
        #expect(Self.ranges(server) == [nil, .resumed, nil])
        #expect(Runner.folderContents(folder) == ["f.bin"])
    }

    @Test func aServerThatAnswersEveryRequestWith206FailsNamingTheURLAfterOneRestart() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(200_000)
        server.route("/odd") { request in
            if server.requestCount("/odd") == 1 {
                var response = TestHTTPServer.Response(headers: [("ETag", "\"e\"")], body: body)
                response.stallAfter = 50_000
                return response
            }
            // From now on a 206 for byte 10 onwards, whatever was asked.
            return .init(status: 206, headers: [("ETag", "\"e\""), ("Content-Range", "bytes 10-199999/200000")], body: Array(body[10...]))
        }
        let runner = Runner.runner(in: folder, readTimeout: Runner.stallReadTimeout)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: '\(server.baseURL)/odd', to: o.bin}, retries: 1}")], in: folder)
        _ = await Runner.run(tasks[0], runner: runner, attempt: 1)
        let second = await Runner.run(tasks[0], runner: runner, attempt: 2)
        #expect(
            second.result
                == .failed(
                    reason: "\(server.baseURL)/odd: HTTP 206 to a request for the whole file", exitCode: nil))
        #expect(Self.ranges(server) == [nil, .resumed, nil])
        #expect(Runner.folderContents(folder) == [])
    }

    /// An attempt stopped by its `timeout` keeps its bytes for the retry, as a broken-off body
    /// does (`curl --retry --max-time -C -`): a slow server's file gets there over attempts.
    /// A cancel still removes them (ActionStopTests).
    @Test func aRetryAfterATimeoutResumesWhereTheTimedOutAttemptStopped() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Runner.bytes(2_000_000, seed: 7)
        server.route("/slow") { _ in
            var response = TestHTTPServer.Response(headers: [("ETag", "\"s\"")], body: body)
            response.servesRanges = true
            if server.requestCount("/slow") == 1 { response.stallAfter = 1_500_000 }
            return response
        }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: '\(server.baseURL)/slow', to: s.bin}, retries: 1, timeout: 1m}")], in: folder)
        // What the engine does when the timeout is over: once whole blocks of the stalled body
        // are in the partial file (the stall holds the attempt until then).
        let handle = LockedBox<(any RunningAttempt)?>(nil)
        let watcher = Task {
            while Self.partialFileBytes(in: folder) < 1 << 20 { try await Task.sleep(nanoseconds: 10_000_000) }
            while handle.value == nil { try await Task.sleep(nanoseconds: 10_000_000) }
            handle.value?.timeOut()
        }
        let first = await Runner.run(tasks[0], runner: runner, attempt: 1) { running, _ in handle.update { $0 = running } }
        watcher.cancel()
        #expect(first.result != .succeeded)
        let second = await Runner.run(tasks[0], runner: runner, attempt: 2)
        #expect(second.result == .succeeded)
        #expect(Runner.contents(folder + "/s.bin").map { $0 == body } == true)
        #expect(Self.ranges(server) == [nil, .resumed])
        #expect(Runner.folderContents(folder) == ["s.bin"])
    }

    /// The size of the hidden partial file beside `to`, 0 while there is none.
    static func partialFileBytes(in folder: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        guard let name = names.first(where: { $0.hasPrefix(".s.bin.flowrun-") && !$0.hasSuffix(".meta") }),
            let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)
        else { return 0 }
        return (attributes[.size] as? Int) ?? 0
    }
}
