import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// A transfer coding other than chunked (`Transfer-Encoding: gzip, chunked`) is not taken off
/// by the HTTP client: its bytes went to `to` and the task was green, while curl saves the file
/// decoded. The task now fails at once naming the URL and the coding, with nothing left.
@Suite struct DownloadTransferCodingTests {
    typealias Support = DownloadRunnerTests

    /// `body` as one chunk, then the last chunk.
    static func chunked(_ body: [UInt8]) -> [UInt8] {
        Array("\(String(body.count, radix: 16))\r\n".utf8) + body + Array("\r\n0\r\n\r\n".utf8)
    }

    @Test func aGzipTransferCodingFailsWithNothingAtTo() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let coded = Support.bytes(3000)
        server.route("/file") { _ in
            var response = TestHTTPServer.Response()
            response.raw = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n".utf8) + Self.chunked(coded)
            return response
        }
        let tasks = try Support.tasks([("get", "{download: {url: '\(server.baseURL)/file', to: out/f.bin}, retries: 2}")], in: folder)
        let runner = Support.runner(in: folder)
        defer { runner.finishRun() }
        let result = await Support.run(tasks[0], runner: runner).result
        guard case .failedAdvising(let reason, let retryable, _) = result else { Issue.record("\(String(describing: result))"); return }
        #expect(!retryable)
        #expect(reason.contains("\(server.baseURL)/file") && reason.contains("Transfer-Encoding 'gzip, chunked'"), "\(reason)")
        #expect(Support.folderContents(folder + "/out").isEmpty)
        #expect(server.requestCount("/file") == 1)
    }

    /// Chunked alone, with extensions and trailers, is the body as sent.
    @Test func chunkedWithExtensionsAndTrailersIsTheBody() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Support.bytes(3000)
        server.route("/file") { _ in
            var response = TestHTTPServer.Response()
            let chunk = Array("0BB8;name=\"a;b\"\r\n".utf8) + body + Array("\r\n0;end\r\nX-Sum: 1\r\n\r\n".utf8)
            response.raw = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n".utf8) + chunk
            return response
        }
        let tasks = try Support.tasks([("get", "{download: {url: '\(server.baseURL)/file', to: out/f.bin}}")], in: folder)
        let runner = Support.runner(in: folder)
        defer { runner.finishRun() }
        #expect(await Support.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Support.contents(folder + "/out/f.bin") == body)
        #expect(Support.folderContents(folder + "/out") == ["f.bin"])
    }
}
