import FlowTestServer
import FlowTestSupport
import Foundation
import Glibc
import Testing

@testable import FlowActions

/// A download that fills the disk fails, saying so, and leaves `to` as it was with no partial
/// file beside it.
@Suite struct DownloadFullDiskTests {
    @Test(.enabled(if: SmallDisk.isAvailable, Comment(rawValue: SmallDisk.skipMessage)))
    func aFullDiskFailsTheDownloadAndLeavesToAsItWas() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/disk", withIntermediateDirectories: true)
        try #require(SmallDisk.mount(at: folder + "/disk", kilobytes: 256))
        defer { SmallDisk.unmount(folder + "/disk") }
        try Data("previous".utf8).write(to: URL(fileURLWithPath: folder + "/disk/file.bin"))
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let body = DownloadRunnerTests.bytes(1 << 20)
        server.route("/file") { _ in .init(body: body) }
        let runner = DownloadRunnerTests.runner(in: folder)
        defer { runner.finishRun() }
        let tasks = try DownloadRunnerTests.tasks(
            [("get", "{download: {url: '\(server.baseURL)/file', to: disk/file.bin, sha256: \(DownloadRunnerTests.sha256(body))}}")],
            in: folder)

        let attempt = await DownloadRunnerTests.run(tasks[0], runner: runner)

        let reason: String
        switch attempt.result {
        case .failed(let text, _), .failedAdvising(let text, retryable: false, _): reason = text
        default:
            Issue.record("expected a failure not worth retrying, got \(String(describing: attempt.result))")
            return
        }
        #expect(reason.contains("cannot write \(folder)/disk/file.bin: No space left on device"), "\(reason)")
        #expect(DownloadRunnerTests.contents(folder + "/disk/file.bin") == Array("previous".utf8))
        #expect(DownloadRunnerTests.folderContents(folder + "/disk") == ["file.bin"])
    }
}
