import FlowTestServer
import Foundation
import Glibc
import Testing

/// What a flowrun killed with SIGKILL leaves behind is removed by the next run.
@Suite struct LeftoverTests {
    func tree(_ folder: TemporaryFolder) -> [String] {
        (FileManager.default.subpaths(atPath: folder.url.path) ?? []).filter { !$0.hasPrefix(".flowrun") }.sorted()
    }

    @Test func aPartialDownloadLeftByAKilledRunIsRemovedByTheNextRun() async throws {
        let server = try DownloadTests.stallingServer()
        defer { server.shutdown() }
        server.route("/whole") { _ in .init(body: DownloadTests.body) }
        let folder = try TemporaryFolder()
        let environment = ["FLOWRUN_CACHE_DIR": folder.url.appendingPathComponent("cache").path]
        try Data(
            """
            version: 1
            tasks:
              fetch: {download: {url: "\(server.baseURL)/stall", to: out/app.bin}, retries: 8}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        // Retries keep the download going past the 30 s read timeout of a stalled transfer, so
        // that the kill finds it unfinished however long a loaded machine takes to send it.
        let killed = try LiveRun(["run", "--events", "jsonl", "flow.yaml"], in: folder.url, environment: environment)
        #expect(await killed.waitFor("\"task.progress\""))
        killed.send(SIGKILL)
        _ = await killed.wait()
        let left = tree(folder).filter { $0.hasPrefix("out/.app.bin.flowrun-") }
        #expect(left.count == 1, "\(tree(folder))")

        try Data(
            """
            version: 1
            tasks:
              fetch: {download: {url: "\(server.baseURL)/whole", to: out/app.bin, sha256: \(DownloadTests.digest)}}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let next = try await FlowrunBinary.run(["run", "flow.yaml"], in: folder.url, environment: environment)

        #expect(next.status == 0, "\(next.stderr)")
        #expect(tree(folder).filter { !$0.hasPrefix("cache") } == ["flow.yaml", "out", "out/app.bin"])
    }
}
