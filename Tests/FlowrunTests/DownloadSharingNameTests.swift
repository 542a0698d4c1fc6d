import FlowTestServer
import Foundation
import Testing

/// Two downloads share one transfer only when their URLs (and headers) are the same bytes:
/// "café" with a precomposed é (NFC) and with e and a combining accent (NFD) are sent as
/// `/caf%C3%A9` and `/cafe%CC%81`, two resources, though Swift's `==` calls the URLs equal.
@Suite struct DownloadSharingNameTests {
    @Test func urlsThatDifferOnlyInUnicodeNormalizationAreTwoTransfers() async throws {
        let server = try TestHTTPServer()
        defer { server.shutdown() }
        // The server's routes go by the decoded path, a String too: the answer looks at the
        // target as sent.
        server.route("/caf\u{E9}") { request in
            .init(body: Array((request.target.hasSuffix("/caf%C3%A9") ? "composed\n" : "decomposed\n").utf8))
        }
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            tasks:
              nfc: {download: {url: "\(server.baseURL)/caf\u{E9}", to: nfc.txt}}
              nfd: {download: {url: "\(server.baseURL)/cafe\u{301}", to: nfd.txt}}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let environment = ["FLOWRUN_CACHE_DIR": folder.url.appendingPathComponent("cache").path]
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url, environment: environment)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let read = { (name: String) in
            FileManager.default.contents(atPath: folder.url.appendingPathComponent(name).path).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(read("nfc.txt") == "composed\n")
        #expect(read("nfd.txt") == "decomposed\n", "the NFD task was handed the NFC resource")
        #expect(Set(server.requests.map(\.target)).count == 2, "\(server.requests.map(\.target))")
    }
}
