import CImageFixtures
import FlowEngine
import FlowModel
import FlowPlanning
import Foundation
import Testing

@testable import FlowActions

/// Folders, tasks, attempts and images for the combine tests.
enum CombineTestSupport {
    /// What one attempt reported.
    struct Attempt {
        var result: AttemptResult?
        var progress: [(done: Int64, total: Int64?, unit: ProgressUnit)] = []
    }

    static func makeFolder() throws -> String {
        let path = NSTemporaryDirectory() + "flowrun-combine-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The single task of a workflow whose task `c` has the `combine` mapping `body` (YAML).
    static func task(_ body: String, in folder: String) throws -> PlannedTask {
        let indented = body.split(separator: "\n").map { "      " + $0 }.joined(separator: "\n")
        let tasks = try ShellRunnerTests.tasks("version: 1\ntasks:\n  c:\n    combine:\n\(indented)\n", in: folder)
        return try #require(tasks.first)
    }

    /// Runs one attempt of `task` and waits for its completion.
    static func run(_ task: PlannedTask, runner: CombineRunner = CombineRunner(loop: SerialQueueLoop())) async -> Attempt {
        let attempt = LockedBox(Attempt())
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let events = AttemptEvents(
                output: { _, _ in },
                progress: { done, total, unit in
                    attempt.update { $0.progress.append((done, total, unit)) }
                })
            _ = runner.startAttempt(of: task, attempt: 1, events: events) { result in
                attempt.update { $0.result = result }
                done.resume()
            }
        }
        return attempt.value
    }

    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// The names in `folder`, hidden ones (temporary files) included.
    static func contents(of folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    static func failureReason(_ attempt: Attempt) -> String? {
        if case .failed(let reason, _) = attempt.result { return reason }
        return nil
    }

    // MARK: Images

    /// An RGBA pixel.
    struct Pixel: Equatable, CustomStringConvertible {
        var r, g, b, a: UInt8
        init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) { (self.r, self.g, self.b, self.a) = (r, g, b, a) }
        var description: String { "(\(r),\(g),\(b),\(a))" }

        /// Each component within `tolerance` of `other`'s.
        func isNear(_ other: Pixel, tolerance: Int = 2) -> Bool {
            zip([r, g, b, a], [other.r, other.g, other.b, other.a]).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
        }
    }

    /// A PNG read back with libpng's simplified API, as RGBA.
    struct ReadImage {
        var width: Int
        var height: Int
        /// Channels the file stores: 3 for RGB, 4 for RGBA.
        var channelsInFile: Int
        var pixels: [UInt8]

        init(path: String) throws {
            var width: UInt32 = 0, height: UInt32 = 0, channels: Int32 = 0
            var buffer: UnsafeMutablePointer<UInt8>?
            guard fixture_read_png(path, &width, &height, &channels, &buffer) == 0, let buffer else {
                throw ActionFailure("cannot read back \(path)")
            }
            defer { free(buffer) }
            self.width = Int(width)
            self.height = Int(height)
            channelsInFile = Int(channels)
            pixels = Array(UnsafeBufferPointer(start: buffer, count: Int(width) * Int(height) * 4))
        }

        subscript(x: Int, y: Int) -> Pixel {
            let index = (y * width + x) * 4
            return Pixel(pixels[index], pixels[index + 1], pixels[index + 2], pixels[index + 3])
        }
    }

    /// An 8-bit RGBA PNG of `pixels` (row by row).
    static func writePNG(_ path: String, width: Int, height: Int, pixels: [Pixel], interlaced: Bool = false) throws {
        let bytes = pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] }
        try writePNG(path, width: width, height: height, bitDepth: 8, colourType: 6, rows: bytes, interlaced: interlaced)
    }

    /// A PNG of any colour type and bit depth; `rows` packed as the PNG stores them.
    static func writePNG(
        _ path: String, width: Int, height: Int, bitDepth: Int, colourType: Int, rows: [UInt8], interlaced: Bool = false,
        palette: [UInt8] = [], paletteAlpha: [UInt8] = [], transparentColour: [UInt16]? = nil
    ) throws {
        let status = rows.withUnsafeBufferPointer { rows in
            palette.withUnsafeBufferPointer { palette in
                paletteAlpha.withUnsafeBufferPointer { alpha in
                    if let transparentColour {
                        return transparentColour.withUnsafeBufferPointer {
                            fixture_write_png(
                                path, UInt32(width), UInt32(height), Int32(bitDepth), Int32(colourType), interlaced ? 1 : 0,
                                rows.baseAddress, palette.baseAddress, Int32(palette.count / 3),
                                alpha.baseAddress, Int32(alpha.count), $0.baseAddress)
                        }
                    }
                    return fixture_write_png(
                        path, UInt32(width), UInt32(height), Int32(bitDepth), Int32(colourType), interlaced ? 1 : 0,
                        rows.baseAddress, palette.baseAddress, Int32(palette.count / 3),
                        alpha.baseAddress, Int32(alpha.count), nil)
                }
            }
        }
        #expect(status == 0, "cannot write test image \(path)")
    }

    /// A JPEG of `pixels`, RGB (or grey with `grey`, taking the red component).
    static func writeJPEG(_ path: String, width: Int, height: Int, pixels: [Pixel], grey: Bool = false, progressive: Bool = false) throws {
        let bytes = grey ? pixels.map(\.r) : pixels.flatMap { [$0.r, $0.g, $0.b] }
        let status = fixture_write_jpeg(path, UInt32(width), UInt32(height), grey ? 1 : 3, bytes, 95, progressive ? 1 : 0)
        #expect(status == 0, "cannot write test image \(path)")
    }

    static func solid(_ pixel: Pixel, _ width: Int, _ height: Int) -> [Pixel] {
        Array(repeating: pixel, count: width * height)
    }

    static let red = Pixel(255, 0, 0), green = Pixel(0, 255, 0), blue = Pixel(0, 0, 255), white = Pixel(255, 255, 255)
    static let clear = Pixel(0, 0, 0, 0)
}
