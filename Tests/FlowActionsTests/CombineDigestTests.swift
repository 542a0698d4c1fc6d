import FlowEngine
import FlowFiles
import Foundation
import Testing

@testable import FlowActions

private typealias Support = CombineTestSupport

/// A combine notes the XXH3-128 of the file it wrote (`StreamedDigests`), under its identity at
/// `to`, so that the up-to-date bookkeeping does not read it back; the digest is the file's.
@Suite struct CombineDigestTests {
    @Test(arguments: ["concat", "tar", "tar.gz", "zip", "image"])
    func theOutputIsNotedWithItsDigest(format: String) async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write(String(repeating: "one\n", count: 100_000), to: folder + "/a.txt")
        try Support.write("two\n", to: folder + "/b.txt")
        try Support.writePNG(folder + "/a.png", width: 40, height: 30, pixels: Support.solid(.init(200, 10, 10), 40, 30))
        try Support.writePNG(folder + "/b.png", width: 30, height: 40, pixels: Support.solid(.init(10, 10, 200), 30, 40))
        let inputs = format == "image" ? "[a.png, b.png]" : "[a.txt, b.txt]"
        let task = try Support.task("inputs: \(inputs)\nto: out/all\nformat: \(format)", in: folder)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded, "\(String(describing: attempt.result))")
        let output = folder + "/out/all"
        let identity = try #require(FileStatus.of(path: output))
        let noted = try #require(StreamedDigests.shared.take(identity))
        #expect(noted.digest == DownloadRunnerTests.xxh128(Array(try Data(contentsOf: URL(fileURLWithPath: output)))))
    }
}
