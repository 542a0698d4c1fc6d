import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// Downloads through an HTTP proxy, as curl makes them: plain http goes to the proxy as
/// `GET http://host/path HTTP/1.1` (absolute form) with the proxy's credentials on it, https
/// through a CONNECT tunnel with the credentials on the CONNECT only. The proxy is a
/// `TestHTTPServer` on 127.0.0.1, which records each request line as it came.
@Suite struct DownloadProxyTests {
    typealias Support = DownloadRunnerTests

    /// Was `CONNECT downloads.example:80` then `GET /via-proxy` inside the tunnel: a proxy that
    /// allows CONNECT only to 443 (squid's default) refused every plain http download.
    @Test func plainHTTPGoesToTheProxyInAbsoluteForm() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let proxy = try TestHTTPServer()
        defer { proxy.shutdown() }
        let body = Support.bytes(1000)
        proxy.route("/via-proxy") { _ in .init(body: body) }
        let tasks = try Support.tasks([("get", "{download: {url: 'http://downloads.example/via-proxy', to: p.bin}}")], in: folder)
        let runner = Support.runner(in: folder, ["http_proxy": "127.0.0.1:\(proxy.port)"])
        defer { runner.finishRun() }
        #expect(await Support.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Support.contents(folder + "/p.bin") == body)
        #expect(proxy.requests.map(\.target) == ["http://downloads.example/via-proxy"])
        #expect(proxy.requests.first?.header("Host") == "downloads.example")
        #expect(proxy.requests.first?.header("Proxy-Authorization") == nil)
        #expect(!Support.folderContents(folder).contains { $0.hasPrefix(".p.bin") })
    }

    /// `HTTP_PROXY` (upper case, as issue 13 names it) is used the same way.
    @Test func upperCaseHTTPProxyIsUsedInAbsoluteFormToo() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let proxy = try TestHTTPServer()
        defer { proxy.shutdown() }
        proxy.route("/u") { _ in .init(body: Array("upper".utf8)) }
        let tasks = try Support.tasks([("get", "{download: {url: 'http://downloads.example/u', to: u.txt}}")], in: folder)
        let runner = Support.runner(in: folder, ["HTTP_PROXY": "http://127.0.0.1:\(proxy.port)"])
        defer { runner.finishRun() }
        #expect(await Support.run(tasks[0], runner: runner).result == .succeeded)
        #expect(proxy.requests.map(\.target) == ["http://downloads.example/u"])
    }

    /// As curl: `http_proxy=http://user:password@host:port` sends Proxy-Authorization (Basic,
    /// percent-decoded) on the request to the proxy.
    @Test func aProxyURLsCredentialsGoOnTheForwardedRequest() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let proxy = try TestHTTPServer()
        defer { proxy.shutdown() }
        let body = Support.bytes(1000)
        proxy.route("/via-proxy") { _ in .init(body: body) }
        let tasks = try Support.tasks([("get", "{download: {url: 'http://downloads.example/via-proxy', to: p.bin}}")], in: folder)
        let runner = Support.runner(in: folder, ["http_proxy": "http://me:se%40cret@127.0.0.1:\(proxy.port)"])
        defer { runner.finishRun() }
        #expect(await Support.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Support.contents(folder + "/p.bin") == body)
        let request = try #require(proxy.requests.first)
        #expect(proxy.requests.count == 1)
        #expect(request.target == "http://downloads.example/via-proxy")
        #expect(request.header("Proxy-Authorization") == "Basic " + Data("me:se@cret".utf8).base64EncodedString())
    }

    /// The request line carries the port and the query as written, never the URL's
    /// `user:password@` (which goes to the origin as Authorization) nor its fragment, as curl's.
    @Test func theAbsoluteTargetKeepsPortAndQueryAndDropsCredentials() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let proxy = try TestHTTPServer()
        defer { proxy.shutdown() }
        proxy.route("/dir/a%20b.bin") { _ in .init(body: Array("spaced".utf8)) }
        proxy.route("/dir/a b.bin") { _ in .init(body: Array("spaced".utf8)) }
        let url = "http://alice:pw@Downloads.example:8080/dir/a%20b.bin?x=1&y=%2F#part"
        let tasks = try Support.tasks([("get", "{download: {url: '\(url)', to: s.bin}}")], in: folder)
        let runner = Support.runner(in: folder, ["http_proxy": "http://127.0.0.1:\(proxy.port)"])
        defer { runner.finishRun() }
        #expect(await Support.run(tasks[0], runner: runner).result == .succeeded)
        let request = try #require(proxy.requests.first)
        #expect(request.target.lowercased() == "http://downloads.example:8080/dir/a%20b.bin?x=1&y=%2f")
        #expect(request.header("Host")?.lowercased() == "downloads.example:8080")
        #expect(request.header("Authorization") == "Basic " + Data("alice:pw".utf8).base64EncodedString())
        #expect(Support.contents(folder + "/s.bin") == Array("spaced".utf8))
    }

    /// https stays a tunnel: the credentials go on the CONNECT, never to the origin inside it.
    @Test func httpsTunnelsWithTheCredentialsOnTheConnectOnly() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tls = try TestHTTPServer.makeTLS(in: folder)
        let proxy = try TestHTTPServer(tunnelTLS: tls.context)
        defer { proxy.shutdown() }
        proxy.route("/secure") { _ in .init(body: Support.bytes(500)) }
        let tasks = try Support.tasks([("get", "{download: {url: 'https://localhost:8443/secure', to: s.bin}}")], in: folder)
        let runner = Support.runner(in: folder, ["https_proxy": "http://me:pw@127.0.0.1:\(proxy.port)", "SSL_CERT_FILE": tls.certificateFile])
        defer { runner.finishRun() }
        #expect(await Support.run(tasks[0], runner: runner).result == .succeeded)
        #expect(proxy.requests.map(\.target) == ["localhost:8443", "/secure"])
        #expect(proxy.requests.first?.header("Proxy-Authorization") == "Basic " + Data("me:pw".utf8).base64EncodedString())
        #expect(proxy.requests.last?.header("Proxy-Authorization") == nil)
    }

    /// A body the proxy cuts is a retryable failure with nothing at `to`; the retry asks the
    /// proxy for the rest (Range, If-Range) and the file comes out whole.
    @Test func aCutBodyThroughTheProxyResumes() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let proxy = try TestHTTPServer()
        defer { proxy.shutdown() }
        let body = Support.bytes(300_000)
        let served = LockedBox(0)
        proxy.route("/cut") { _ in
            served.update { $0 += 1 }
            var response = TestHTTPServer.Response(headers: [("ETag", "\"v1\"")], body: body)
            response.servesRanges = true
            if served.value == 1 { response.closeAfter = 100_000 }
            return response
        }
        let tasks = try Support.tasks(
            [("get", "{download: {url: 'http://downloads.example/cut', to: c.bin, sha256: \(Support.sha256(body))}, retries: 1}")], in: folder)
        let runner = Support.runner(in: folder, ["http_proxy": "http://127.0.0.1:\(proxy.port)"])
        defer { runner.finishRun() }
        let first = await Support.run(tasks[0], runner: runner, attempt: 1)
        // Retryable: the task's retries decide (a failure that is not advises against one).
        guard case .failed(_, nil) = first.result else { Issue.record("\(String(describing: first.result))"); return }
        #expect(!FileManager.default.fileExists(atPath: folder + "/c.bin"))
        #expect(await Support.run(tasks[0], runner: runner, attempt: 2).result == .succeeded)
        #expect(Support.contents(folder + "/c.bin") == body)
        #expect(proxy.requests.map(\.target) == ["http://downloads.example/cut", "http://downloads.example/cut"])
        #expect(proxy.requests.last?.header("Range") == "bytes=100000-")
        #expect(proxy.requests.last?.header("If-Range") == "\"v1\"")
    }

    /// A redirect's next URL goes through the proxy too, in absolute form.
    @Test func aRedirectThroughTheProxyIsForwardedAgain() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let proxy = try TestHTTPServer()
        defer { proxy.shutdown() }
        proxy.route("/old") { _ in .init(status: 301, headers: [("Location", "/new")]) }
        proxy.route("/new") { _ in .init(body: Array("moved".utf8)) }
        let tasks = try Support.tasks([("get", "{download: {url: 'http://downloads.example/old', to: m.txt}}")], in: folder)
        let runner = Support.runner(in: folder, ["http_proxy": "http://127.0.0.1:\(proxy.port)"])
        defer { runner.finishRun() }
        #expect(await Support.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Support.contents(folder + "/m.txt") == Array("moved".utf8))
        #expect(proxy.requests.map(\.target) == ["http://downloads.example/old", "http://downloads.example/new"])
    }

    /// A proxy that is not there fails the attempt (retryable, as curl's exit 7), naming the URL.
    @Test func aProxyThatIsNotListeningFailsRetryably() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let closed = try TestHTTPServer()
        let port = closed.port
        closed.shutdown()
        let tasks = try Support.tasks([("get", "{download: {url: 'http://downloads.example/x', to: x.bin}}")], in: folder)
        let runner = Support.runner(in: folder, ["http_proxy": "http://127.0.0.1:\(port)"])
        defer { runner.finishRun() }
        let result = await Support.run(tasks[0], runner: runner).result
        guard case .failed(let reason, nil) = result else { Issue.record("\(String(describing: result))"); return }
        #expect(reason.contains("http://downloads.example/x"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/x.bin"))
    }

    /// A cancel mid-body through the proxy ends the attempt cancelled, `to` as it was, no
    /// temporary file; a stalled body through it is the read timeout (retryable).
    @Test func aForwardedRequestIsCancelledAndTimesOutAsADirectOne() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let proxy = try TestHTTPServer()
        defer { proxy.shutdown() }
        proxy.routeStalling("/stall", body: Support.bytes(100_000), after: 10_000)
        try Data("old version".utf8).write(to: URL(fileURLWithPath: folder + "/app.bin"))
        let tasks = try Support.tasks([("get", "{download: {url: 'http://downloads.example/stall', to: app.bin}, retries: 3}")], in: folder)
        let runner = Support.runner(in: folder, ["http_proxy": "http://127.0.0.1:\(proxy.port)"], readTimeout: 1)
        defer { runner.finishRun() }
        let cancelled = await Support.run(tasks[0], runner: runner) { running, _ in running.terminate() }
        #expect(cancelled.result == .failedAdvising(reason: "cancelled", retryable: false, notBeforeMilliseconds: nil))
        #expect(Support.folderContents(folder) == ["app.bin"])
        #expect(Support.contents(folder + "/app.bin") == Array("old version".utf8))
        let stalled = await Support.run(tasks[0], runner: runner).result
        guard case .failed(let reason, nil) = stalled else { Issue.record("\(String(describing: stalled))"); return }
        #expect(reason.contains("timed out waiting for data"), "\(reason)")
        #expect(proxy.requests.allSatisfy { $0.target == "http://downloads.example/stall" })
    }
}
