import Crypto
import FlowTestServer
import Foundation
import Glibc
import Testing

/// A download cut by a flowrun killed with SIGKILL goes on where it stopped in the next run, as
/// `curl -C -` does: Range and If-Range from the kept bytes, the whole file verified.
@Suite struct DownloadResumeAfterKillTests {
    static let body: [UInt8] = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 / 509) }
    static let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()

    /// The size of the hidden partial file beside `to`, 0 while there is none.
    static func keptBytes(in folder: TemporaryFolder) -> Int {
        let out = folder.url.appendingPathComponent("out").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        guard let partial = names.first(where: { $0.hasPrefix(".app.bin.flowrun-") && !$0.hasSuffix(".meta") }),
            let attributes = try? FileManager.default.attributesOfItem(atPath: out + "/" + partial)
        else { return 0 }
        return (attributes[.size] as? Int) ?? 0
    }

    @Test func aRunAfterAKilledOneFetchesOnlyTheRest() async throws {
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        let killedYet = LockedCounter()
        server.route("/app.bin") { _ in
            var response = TestHTTPServer.Response(headers: [("ETag", "\"v1\"")], body: Self.body)
            // The killed run's transfers (a retry too, should a loaded machine let the read
            // timeout pass first) stall two thirds in; the next run's gets the rest.
            if killedYet.value == 0 {
                response.stallAfter = 2_200_000
            } else {
                response.servesRanges = true
            }
            return response
        }
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            tasks:
              fetch: {download: {url: "\(server.baseURL)/app.bin", to: out/app.bin, sha256: \(Self.digest)}, retries: 8}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let environment = ["FLOWRUN_CACHE_DIR": folder.url.appendingPathComponent("cache").path]
        let killed = try LiveRun(["run", "--events", "jsonl", "flow.yaml"], in: folder.url, environment: environment)
        // Whole 512 KiB blocks reach the file as they fill: wait for a good part of the body.
        for _ in 0..<12_000 where Self.keptBytes(in: folder) < 1 << 20 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(Self.keptBytes(in: folder) >= 1 << 20)
        killed.send(SIGKILL)
        _ = await killed.wait()
        _ = killedYet.increment()
        let kept = Self.keptBytes(in: folder)
        let sentBefore = server.bodyBytesSent("/app.bin")

        let next = try await FlowrunBinary.run(["run", "flow.yaml"], in: folder.url, environment: environment)

        #expect(next.status == 0, "\(next.stderr)")
        #expect(FileManager.default.contents(atPath: folder.url.appendingPathComponent("out/app.bin").path).map { Array($0) } == Self.body)
        let resumed = server.requests.last
        #expect(resumed?.header("Range") == "bytes=\(kept)-")
        #expect(resumed?.header("If-Range") == "\"v1\"")
        #expect(server.bodyBytesSent("/app.bin") - sentBefore == Self.body.count - kept, "only the rest was fetched again")
        let out = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("out").path)
        #expect(out == ["app.bin"], "no partial file or record left")
    }
}
