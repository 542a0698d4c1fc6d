import FlowTestSupport
import Foundation
import Glibc
import Testing

@testable import FlowActions

private typealias Support = CombineTestSupport

/// A combine whose output does not fit on the disk fails naming `to` and the reason, and
/// leaves `to` as it was with no temporary file beside it.
@Suite struct CombineFullDiskTests {
    @Test(.enabled(if: SmallDisk.isAvailable, Comment(rawValue: SmallDisk.skipMessage)), arguments: ["concat", "tar", "tar.gz", "zip", "image"])
    func aFullDiskFailsTheTaskAndLeavesTheOldOutput(format: String) async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/disk", withIntermediateDirectories: true)
        try #require(SmallDisk.mount(at: folder + "/disk", kilobytes: 256))
        defer { SmallDisk.unmount(folder + "/disk") }
        // Random bytes, so that gzip cannot make them fit.
        var random = SystemRandomNumberGenerator()
        let big = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
        try big.write(to: URL(fileURLWithPath: folder + "/big.bin"))
        // 512 x 512 pixels of noise: a PNG of about a megabyte.
        let pixels = stride(from: 0, to: big.count, by: 4).map { Support.Pixel(big[$0], big[$0 + 1], big[$0 + 2]) }
        try Support.writePNG(folder + "/big.png", width: 512, height: 512, pixels: Array(pixels.prefix(512 * 512)))
        try Support.write("previous", to: folder + "/disk/all.out")
        let input = format == "image" ? "big.png" : "big.bin"
        let task = try Support.task("inputs: [\(input)]\nto: disk/all.out\nformat: \(format)", in: folder)

        let attempt = await Support.run(task)

        let reason = try #require(Support.failureReason(attempt))
        #expect(reason.contains("\(folder)/disk/all.out") && reason.contains("No space left on device"), "\(reason)")
        #expect(try String(contentsOfFile: folder + "/disk/all.out", encoding: .utf8) == "previous")
        #expect(Support.contents(of: folder + "/disk") == ["all.out"])
    }
}
