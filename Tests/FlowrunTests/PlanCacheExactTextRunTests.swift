import Foundation
import Testing

/// A run that takes its plan from the compiled-plan cache does what the first run did, byte for
/// byte: two file names that differ only in Unicode normalization (é precomposed, as typed on
/// Linux; e and a combining accent, as macOS names files) are two files to Linux, and Swift's
/// `==` on strings calls them equal.
@Suite struct PlanCacheExactTextRunTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func aCachedRunWritesTheFileNamesTheFirstRunWrote() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              nfc: {shell: "touch \(Self.composed).txt"}
              nfd: {shell: "touch \(Self.decomposed).txt"}

            """)
        for run in 1...2 {
            for name in [Self.composed, Self.decomposed] { unlink(folder.url.path + "/" + name + ".txt") }
            let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
            #expect(result.status == 0, "run \(run): \(result.stdout)\(result.stderr)")
            // By bytes: FileManager would compare the names as Swift strings.
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).map { Array($0.utf8) })
            #expect(names.contains(Array((Self.composed + ".txt").utf8)), "run \(run) wrote no NFC file")
            #expect(names.contains(Array((Self.decomposed + ".txt").utf8)), "run \(run) wrote no NFD file")
        }
    }
}
