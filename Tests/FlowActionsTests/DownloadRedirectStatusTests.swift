import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// Which answers are redirects, as `curl -L` takes them: 300, 301, 302, 303, 307 and 308 with a
/// Location. A 300 Multiple Choices with a Location (the server's preferred choice, RFC 9110
/// 15.4.1) failed the task as `HTTP 300`, where curl and wget fetch the file.
@Suite struct DownloadRedirectStatusTests {
    typealias Support = DownloadRunnerTests

    @Test(arguments: [300, 301, 302, 303, 307, 308])
    func aRedirectStatusWithALocationIsFollowed(status: Int) async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = Support.bytes(2000)
        server.route("/from") { _ in .init(status: status, headers: [("Location", "to")], body: Array("see other".utf8)) }
        server.route("/to") { _ in .init(body: body) }
        let tasks = try Support.tasks([("get", "{download: {url: '\(server.baseURL)/from', to: f.bin}}")], in: folder)
        let runner = Support.runner(in: folder)
        defer { runner.finishRun() }
        #expect(await Support.run(tasks[0], runner: runner).result == .succeeded)
        #expect(Support.contents(folder + "/f.bin") == body)
        #expect(server.requests.map(\.path) == ["/from", "/to"])
    }

    /// A 3xx curl does not follow, or one without a Location, fails at once naming its status;
    /// nothing is written at `to` (curl -fL saves its body and exits 0).
    @Test(arguments: [(300, false), (304, true), (305, true), (302, false)])
    func otherAnswersFailNamingTheStatus(status: Int, withLocation: Bool) async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        server.route("/from") { _ in .init(status: status, headers: withLocation ? [("Location", "to")] : []) }
        server.route("/to") { _ in .init(body: Array("wrong".utf8)) }
        let tasks = try Support.tasks([("get", "{download: {url: '\(server.baseURL)/from', to: f.bin}, retries: 2}")], in: folder)
        let runner = Support.runner(in: folder)
        defer { runner.finishRun() }
        let result = await Support.run(tasks[0], runner: runner).result
        guard case .failedAdvising(let reason, let retryable, _) = result else { Issue.record("\(String(describing: result))"); return }
        #expect(!retryable)
        #expect(reason.contains("HTTP \(status)"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/f.bin"))
        #expect(server.requestCount("/to") == 0)
    }
}
