import FlowEngine
import FlowModel
import FlowPlanning
import FlowTestServer
import Foundation
import Testing

@testable import FlowActions

/// Every action's failure reason shows the secret values its fields took as `***`, as
/// `--dry-run` shows the fields, and those of its environment as its output lines do
/// (`SecretMask`, applied by `ActionRunner` to every attempt's result): in a URL's user info
/// and query, in a path, in whatever the message names.
@Suite struct ActionSecretTests {
    /// The value behind each `${NAME}` whose name looks secret.
    static let secret = "s3cr3t-Q7zv"
    static let environment = ["FLOW_TEST_TOKEN": secret, "FLOW_TEST_PASSWORD": secret]

    /// Runs the one task of `yaml` (its tasks' map) and returns its failure reason.
    static func reason(_ tasks: String, in folder: String, on runner: any TaskRunner) async throws -> String {
        let task = try ActionAttemptHarness.tasks("version: 1\ntasks:\n\(tasks)\n", in: folder, environment: environment)[0]
        let attempt = await ActionAttemptHarness.run(task, on: runner)
        return try #require(ActionAttemptHarness.reason(attempt.result), "\(String(describing: attempt.result))")
    }

    @Test func downloadFailuresMaskASecretInTheUserInfoTheQueryAndThePath() async throws {
        let folder = try ActionAttemptHarness.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let runner = ActionRunner(processEnvironment: ["FLOWRUN_CACHE_DIR": folder + "/cache"])
        defer { runner.finishRun() }
        let host = server.baseURL.dropFirst("http://".count)

        let userInfo = try await Self.reason(
            "  get: {download: {url: 'http://user:${FLOW_TEST_PASSWORD}@\(host)/missing', to: a.bin}}", in: folder, on: runner)
        #expect(userInfo == "http://user:***@\(host)/missing: HTTP 404 Not Found")

        let query = try await Self.reason(
            "  get: {download: {url: '\(server.baseURL)/missing?token=${FLOW_TEST_TOKEN}', to: b.bin}}", in: folder, on: runner)
        #expect(query == "\(server.baseURL)/missing?token=***: HTTP 404 Not Found")

        // A `to` under a regular file: its folder cannot be made.
        try Data("a file".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(Self.secret)"))
        server.route("/file") { _ in .init(body: Array("bytes".utf8)) }
        let path = try await Self.reason(
            "  get: {download: {url: '\(server.baseURL)/file', to: '${FLOW_TEST_TOKEN}/c.bin'}}", in: folder, on: runner)
        #expect(path == "cannot create folder \(folder)/***: Not a directory")
    }

    @Test func decompressFailuresMaskASecretInFromAndTo() async throws {
        let folder = try ActionAttemptHarness.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runner = ActionRunner(processEnvironment: [:])
        defer { runner.finishRun() }

        let from = try await Self.reason("  unpack: {decompress: {from: 'in/${FLOW_TEST_TOKEN}.tar', to: out}}", in: folder, on: runner)
        #expect(from == "cannot read '\(folder)/in/***.tar': No such file or directory")

        try DecompressFixtures.tar(at: folder + "/a.tar", entryBytes: 10)
        try Data("a file".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(Self.secret)"))
        let to = try await Self.reason("  unpack: {decompress: {from: a.tar, to: '${FLOW_TEST_TOKEN}'}}", in: folder, on: runner)
        #expect(to == "'\(folder)/***' exists and is not a folder")
    }

    @Test func combineFailuresMaskASecretInAnInputAndInTo() async throws {
        let folder = try ActionAttemptHarness.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runner = ActionRunner(processEnvironment: [:])
        defer { runner.finishRun() }

        let input = try await Self.reason(
            "  join: {combine: {inputs: ['in/${FLOW_TEST_TOKEN}.txt'], to: all.txt}}", in: folder, on: runner)
        #expect(input == "cannot open input 'in/${FLOW_TEST_TOKEN}.txt': No such file or directory")

        try Data("a".utf8).write(to: URL(fileURLWithPath: "\(folder)/a.txt"))
        try Data("a file".utf8).write(to: URL(fileURLWithPath: "\(folder)/\(Self.secret)"))
        let to = try await Self.reason("  join: {combine: {inputs: [a.txt], to: '${FLOW_TEST_TOKEN}/all.txt'}}", in: folder, on: runner)
        #expect(to == "cannot create folder \(folder)/***: Not a directory")
    }

    @Test func aShellTaskThatCannotStartMasksASecretInItsWorkdir() async throws {
        let folder = try ActionAttemptHarness.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runner = ActionRunner(processEnvironment: [:])
        defer { runner.finishRun() }
        let reason = try await Self.reason("  build: {workdir: 'gone/${FLOW_TEST_TOKEN}', shell: 'true'}", in: folder, on: runner)
        #expect(reason == "workdir '\(folder)/gone/***' does not exist")
    }

    /// A secret of the task's environment is masked in its failure reason as in its output lines,
    /// though no field took it (here a path written out in full, elsewhere an archive entry or a
    /// file a glob found): every action kind, and a shell task that cannot start. One shorter
    /// than `SecretMask.minimumOutputLength` is not.
    @Test func failuresMaskTheSecretsOfTheTasksEnvironmentAsItsOutputIs() async throws {
        let folder = try ActionAttemptHarness.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let runner = ActionRunner(processEnvironment: ["DEPLOY_TOKEN": Self.secret, "SHORT_KEY": "in"])
        defer { runner.finishRun() }

        let from = try await Self.reason("  unpack: {decompress: {from: 'in/\(Self.secret).tar', to: out}}", in: folder, on: runner)
        #expect(from == "cannot read '\(folder)/in/***.tar': No such file or directory")
        let workdir = try await Self.reason("  build: {workdir: 'in/\(Self.secret)', shell: 'true'}", in: folder, on: runner)
        #expect(workdir == "workdir '\(folder)/in/***' does not exist")
    }

    @Test func secretValuesAreFoundBesideTheirShownFormAndMaskedLongestFirst() {
        let mask = SecretMask([
            ("https://u:pw@host/x?token=abc123&k=v", "https://***@host/x?token=***&k=v"),
            ("/out/abc123.bin", "/out/***.bin"),
            ("Bearer zzz", "Bearer ***"),
            ("/data/abc1234/x", "/data/***/x"),
            ("plain", "plain"),
        ])
        #expect(mask.secrets == ["abc1234", "abc123", "u:pw", "zzz"])
        #expect(mask("GET https://host/next?t=abc123 failed for u:pw in /data/abc1234") == "GET https://host/next?t=*** failed for *** in /data/***")
        #expect(SecretMask([]).secrets.isEmpty)
        #expect(SecretMask([])("abc123") == "abc123")
    }

    /// Output lines are masked with the secret values in a task's environment too: a process
    /// value whose name looks secret, unless the task's env sets that name in the file; a value
    /// shorter than `SecretMask.minimumOutputLength` masks nothing.
    @Test func outputLinesAreMaskedWithTheSecretValuesInTheTasksEnvironment() throws {
        let folder = try ActionAttemptHarness.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tasks = try ActionAttemptHarness.tasks(
            "version: 1\ntasks:\n  a: {shell: 'true'}\n  b: {env: {FLOW_TEST_TOKEN: in-the-file}, shell: 'true'}\n", in: folder)
        let process = ["FLOW_TEST_TOKEN": Self.secret, "SHORT_KEY": "1"]
        let inA = tasks[0].environmentSecretValues(secretOverrides: [:], processSecrets: process)
        #expect(Set(inA) == [Self.secret, "1"])
        #expect(tasks[1].environmentSecretValues(secretOverrides: [:], processSecrets: process) == ["1"])
        let mask = SecretMask(outputOf: tasks[0], environmentSecrets: inA)
        #expect(mask.secrets == [Self.secret])
        #expect(mask("key \(Self.secret) in 1 of 12") == "key *** in 1 of 12")
    }
}
