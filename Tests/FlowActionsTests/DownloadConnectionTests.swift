import FlowEngine
import FlowLoading
import FlowPlanning
import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// Kept-alive connections the server closes, and the URLs failures name after a redirect.
@Suite struct DownloadConnectionTests {
    typealias Runner = DownloadRunnerTests

    @Test func aKeptAliveConnectionTheServerClosesIsRetriedOnAFreshOneWhateverRetriesSays() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer(dropsReusedConnections: true)
        defer { server.shutdown() }
        let first = Runner.bytes(10_000, seed: 1), second = Runner.bytes(20_000, seed: 2)
        server.route("/first") { _ in .init(body: first) }
        let rounds = 10
        for round in 0..<rounds { server.route("/second-\(round)") { _ in .init(body: second) } }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks(
            [("first", "{download: {url: '\(server.baseURL)/first', to: first.bin}}")]
                + (0..<rounds).map { ("second\($0)", "{download: {url: '\(server.baseURL)/second-\($0)', to: second-\($0).bin}, retries: 0}") },
            in: folder)
        #expect(await Runner.run(tasks[0], runner: runner).result == .succeeded)
        // Whether the client puts the first connection back in its pool before the next request
        // is its own race (a loaded machine can lose it): the next download is tried until one
        // goes out on the kept-alive connection, which the server then closes unanswered.
        var retriedAfterReuse = false
        for round in 0..<rounds where !retriedAfterReuse {
            #expect(await Runner.run(tasks[1 + round], runner: runner).result == .succeeded)
            #expect(Runner.contents(folder + "/second-\(round).bin").map { $0 == second } == true)
            let connections = server.requests.filter { $0.path == "/second-\(round)" }.map(\.reusedConnection)
            // Reused and closed unanswered, then once more on a new connection; or new at once.
            #expect(connections == [true, false] || connections == [false], "\(connections)")
            retriedAfterReuse = connections == [true, false]
        }
        #expect(retriedAfterReuse, "no download in \(rounds) went out on a kept-alive connection")
    }

    @Test func aConnectionThatDiesUnansweredIsTriedOnceMoreOnly() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        server.route("/silent") { _ in
            var response = TestHTTPServer.Response()
            response.unanswered = true
            return response
        }
        let runner = Runner.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try Runner.tasks([("get", "{download: {url: '\(server.baseURL)/silent', to: s.bin}, retries: 0}")], in: folder)
        let result = await Runner.run(tasks[0], runner: runner).result
        #expect(
            result
                == .failed(
                    reason: "\(server.baseURL)/silent: the server closed the connection early", exitCode: nil))
        #expect(server.requestCount("/silent") == 2)
        #expect(Runner.folderContents(folder) == [])
    }

    /// Download tasks planned with `environment` as the process environment.
    static func tasks(_ entries: [(String, String)], in folder: String, environment: [String: String]) throws -> [PlannedTask] {
        let yaml = "version: 1\ntasks:\n" + entries.map { "  \($0.0): \($0.1)" }.joined(separator: "\n") + "\n"
        let loaded = WorkflowLoader.decode(Array(yaml.utf8), file: "w.yaml", directory: folder, defaultName: "w")
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        var options = PlanningOptions()
        options.processEnvironment = environment
        let workflow = try #require(loaded.workflow)
        return try #require(try Planner.plan(workflow, options: options).plan).tasks
    }

    @Test func failuresAfterARedirectNameTheURLThatFailedWithSecretsMasked() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let token = "s3cr3t-value"
        // As signed-URL services do, the redirect carries the token along.
        server.route("/start") { _ in .init(status: 302, headers: [("Location", "/moved?token=\(token)")]) }
        server.route("/odd") { _ in .init(status: 302, headers: [("Location", "ftp://files.example/\(token)")]) }
        // Through the run's runner, which masks every attempt's failure.
        let runner = ActionRunner(processEnvironment: ["FLOWRUN_CACHE_DIR": folder + "/cache"])
        defer { runner.finishRun() }
        let tasks = try Self.tasks(
            [
                ("moved", "{download: {url: '\(server.baseURL)/start?token=${DL_TOKEN}', to: m.bin}}"),
                ("odd", "{download: {url: '\(server.baseURL)/odd?token=${DL_TOKEN}', to: o.bin}}"),
            ], in: folder, environment: ["DL_TOKEN": token])
        let moved = await ActionAttemptHarness.run(tasks[0], on: runner).result
        #expect(
            moved
                == .failedAdvising(
                    reason: "\(server.baseURL)/moved?token=*** (redirected from \(server.baseURL)/start?token=***): HTTP 404 Not Found",
                    retryable: false, notBeforeMilliseconds: nil))
        #expect(server.requests.last?.target == "/moved?token=\(token)")
        let odd = await ActionAttemptHarness.run(tasks[1], on: runner).result
        #expect(
            odd
                == .failedAdvising(
                    reason: "\(server.baseURL)/odd?token=***: redirect to an unsupported URL 'ftp://files.example/***'", retryable: false,
                    notBeforeMilliseconds: nil))
        #expect(Runner.folderContents(folder) == [])
    }
}
