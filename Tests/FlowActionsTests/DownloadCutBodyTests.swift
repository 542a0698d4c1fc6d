import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// A body the server's close broke off failed as `stream ended at an unexpected time` (the
/// HTTP parser's words, through a proxy `the server closed the connection early`), and a
/// malformed answer as `unknown (http_parser error)`. Now, as curl's "transfer closed with N
/// bytes remaining to read", the failure says how far the body came.
@Suite struct DownloadCutBodyTests {
    typealias Support = DownloadRunnerTests

    static func failure(_ answer: TestHTTPServer.Response) async throws -> (reason: String, url: String, left: [String]) {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        server.route("/file") { _ in answer }
        let tasks = try Support.tasks([("get", "{download: {url: '\(server.baseURL)/file', to: out/f.bin}}")], in: folder)
        let runner = Support.runner(in: folder)
        defer { runner.finishRun() }
        let result = await Support.run(tasks[0], runner: runner).result
        guard case .failed(let reason, _) = result else { throw Unexpected(result: "\(String(describing: result))") }
        return (reason, "\(server.baseURL)/file", Support.folderContents(folder + "/out"))
    }

    struct Unexpected: Error { var result: String }

    @Test func aContentLengthLongerThanTheBodyNamesHowFarItCame() async throws {
        var answer = TestHTTPServer.Response(body: Support.bytes(2000))
        answer.closeAfter = 500
        let (reason, url, left) = try await Self.failure(answer)
        #expect(reason == "\(url): the connection closed after 500 of 2000 bytes")
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aChunkedBodyWithoutItsLastChunkSaysSo() async throws {
        var answer = TestHTTPServer.Response()
        answer.raw = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n".utf8) + Support.bytes(16) + Array("\r\n".utf8)
        let (reason, url, left) = try await Self.failure(answer)
        #expect(reason == "\(url): the connection closed before the body's end, after 16 bytes")
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aMalformedAnswerIsNamedAsNotHTTP() async throws {
        var answer = TestHTTPServer.Response()
        answer.raw = Array("HTTP/1.1 200 OK\r\nX-Fold: a\r\n  b\r\nContent-Length: 2\r\n\r\nhi".utf8)
        let (reason, url, left) = try await Self.failure(answer)
        #expect(reason.hasPrefix("\(url): not a valid HTTP/1.1 response ("), "\(reason)")
        #expect(left.isEmpty, "\(left)")
    }
}
