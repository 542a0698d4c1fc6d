import FlowEngine
import FlowModel
import Foundation
import Testing

@testable import FlowActions

/// `format: image`: inputs made by libpng and libjpeg in the test, the output read back with
/// libpng and compared pixel by pixel.
@Suite struct CombineImageTests {
    typealias Support = CombineTestSupport
    typealias Pixel = CombineTestSupport.Pixel

    /// Runs a combine of `inputs` into `out.png` with the image options `options` (YAML lines).
    static func combine(
        _ inputs: [String], _ options: String = "", in folder: String, runner: CombineRunner = CombineRunner(loop: SerialQueueLoop())
    ) async throws -> (CombineTestSupport.Attempt, CombineTestSupport.ReadImage?) {
        let list = inputs.map { "\"\($0)\"" }.joined(separator: ", ")
        let task = try Support.task("inputs: [\(list)]\nto: out.png\nformat: image\n\(options)", in: folder)
        let attempt = await Support.run(task, runner: runner)
        guard attempt.result == .succeeded else { return (attempt, nil) }
        return (attempt, try Support.ReadImage(path: "\(folder)/out.png"))
    }

    @Test func aRowOfCellsScalesEachImageToFitAndCentresItOverTheBackground() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.writePNG("\(folder)/red.png", width: 10, height: 10, pixels: Support.solid(Support.red, 10, 10))
        try Support.writePNG("\(folder)/blue.png", width: 20, height: 10, pixels: Support.solid(Support.blue, 20, 10))

        let (attempt, output) = try await Self.combine(["red.png", "blue.png"], "size: 16x16\nbackground: \"#ffffff\"", in: folder)

        #expect(attempt.result == .succeeded, "\(attempt.result as Any)")
        let image = try #require(output)
        #expect(image.width == 32 && image.height == 16)
        #expect(image.channelsInFile == 3)
        // Red is scaled up to fill its cell; blue, 2:1, becomes 16x8 centred (rows 4 to 11).
        #expect(image[0, 0] == Support.red && image[8, 8] == Support.red && image[15, 15] == Support.red)
        #expect(image[24, 8] == Support.blue && image[24, 4] == Support.blue && image[24, 11] == Support.blue)
        #expect(image[24, 3] == Support.white && image[24, 12] == Support.white && image[16, 0] == Support.white)
        let last = try #require(attempt.progress.last)
        #expect(last.done == 2 && last.total == 2 && last.unit == .entries)
    }

    @Test func withoutBackgroundTheOutputIsTransparentAroundTheImages() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.writePNG("\(folder)/wide.png", width: 20, height: 10, pixels: Support.solid(Support.green, 20, 10))

        let (_, output) = try await Self.combine(["wide.png"], "size: 16x16", in: folder)

        let image = try #require(output)
        #expect(image.channelsInFile == 4)
        #expect(image[8, 8] == Support.green)
        #expect(image[8, 1] == Support.clear && image[8, 14] == Support.clear)
    }

    @Test func aGridFillsRowByRowAndAColumnStacks() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, colour) in [("1", Support.red), ("2", Support.green), ("3", Support.blue)] {
            try Support.writePNG("\(folder)/\(name).png", width: 4, height: 4, pixels: Support.solid(colour, 4, 4))
        }

        let (_, grid) = try await Self.combine(["*.png"], "layout: grid\nsize: 8x8", in: folder)
        let image = try #require(grid)
        #expect(image.width == 16 && image.height == 16)
        #expect(image[4, 4] == Support.red && image[12, 4] == Support.green && image[4, 12] == Support.blue)
        #expect(image[12, 12] == Support.clear)

        let (_, wide) = try await Self.combine(["*.png"], "layout: grid\ncolumns: 4\nsize: 8x8", in: folder)
        let row = try #require(wide)
        #expect(row.width == 32 && row.height == 8)
        #expect(row[20, 4] == Support.blue && row[28, 4] == Support.clear)

        let (_, column) = try await Self.combine(["1.png", "3.png"], "layout: column\nsize: 8x8", in: folder)
        let stacked = try #require(column)
        #expect(stacked.width == 8 && stacked.height == 16)
        #expect(stacked[4, 4] == Support.red && stacked[4, 12] == Support.blue)
    }

    @Test func withoutSizeTheCellIsTheWidestByTheTallestInput() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.writePNG("\(folder)/a.png", width: 10, height: 4, pixels: Support.solid(Support.red, 10, 4))
        try Support.writePNG("\(folder)/b.png", width: 4, height: 10, pixels: Support.solid(Support.blue, 4, 10))

        let (_, output) = try await Self.combine(["a.png", "b.png"], in: folder)

        let image = try #require(output)
        #expect(image.width == 20 && image.height == 10)
        #expect(image[5, 3] == Support.red && image[5, 6] == Support.red && image[5, 2] == Support.clear)
        #expect(image[13, 5] == Support.blue && image[16, 5] == Support.blue && image[12, 5] == Support.clear)
    }

    @Test func scalingFiltersRatherThanPickingTheNearestPixel() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let black = Pixel(0, 0, 0)
        try Support.writePNG("\(folder)/step.png", width: 2, height: 1, pixels: [black, Support.white])
        let checks = (0..<64).map { ($0 % 8 + $0 / 8) % 2 == 0 ? black : Support.white }
        try Support.writePNG("\(folder)/checks.png", width: 8, height: 8, pixels: checks)

        let (_, up) = try await Self.combine(["step.png"], "size: 64x32", in: folder)
        let upscaled = try #require(up)
        // Nearest-neighbour makes the middle black or white; a filter makes a ramp.
        for x in [31, 32] { #expect((40...215).contains(upscaled[x, 16].r), "\(upscaled[x, 16])") }
        #expect(upscaled[0, 16].r < 20 && upscaled[63, 16].r > 235)

        let (_, down) = try await Self.combine(["checks.png"], "size: 2x2", in: folder)
        let downscaled = try #require(down)
        for y in 0..<2 { for x in 0..<2 { #expect((108...148).contains(downscaled[x, y].r), "\(downscaled[x, y])") } }
    }

    @Test func transparentPixelsColoursDoNotDarkenScaledEdges() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let half = (0..<16).map { $0 < 8 ? Support.red : Support.clear }
        try Support.writePNG("\(folder)/half.png", width: 16, height: 1, pixels: half)

        let (_, output) = try await Self.combine(["half.png"], "size: 4x1", in: folder)

        let image = try #require(output)
        #expect(image.width == 4)
        #expect(image[0, 0].a > 200 && image[3, 0].a < 50)
        for x in 0..<4 where image[x, 0].a > 8 {
            #expect(image[x, 0].isNear(Pixel(255, 0, 0, image[x, 0].a), tolerance: 3), "x \(x): \(image[x, 0])")
        }
    }

    @Test func compositingBlendsTheSRGBEncodedValues() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.writePNG("\(folder)/veil.png", width: 2, height: 2, pixels: Support.solid(Pixel(255, 0, 0, 128), 2, 2))

        let (_, output) = try await Self.combine(["veil.png"], "background: \"#ffffff\"", in: folder)

        // 255 * (1 - 128/255) = 127 in encoded values; blending in linear light would give 188.
        #expect(try #require(output)[1, 1].isNear(Pixel(255, 127, 127), tolerance: 1))
    }

    @Test(arguments: [false, true])
    func baselineAndProgressiveJPEGsInColourAndGreyAreRead(progressive: Bool) async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let orange = Pixel(200, 100, 50)
        try Support.writeJPEG("\(folder)/colour.jpg", width: 16, height: 16, pixels: Support.solid(orange, 16, 16), progressive: progressive)
        try Support.writeJPEG(
            "\(folder)/grey.jpg", width: 16, height: 16, pixels: Support.solid(Pixel(120, 0, 0), 16, 16),
            grey: true, progressive: progressive)

        let (attempt, output) = try await Self.combine(["colour.jpg", "grey.jpg"], in: folder)

        #expect(attempt.result == .succeeded, "\(attempt.result as Any)")
        let image = try #require(output)
        #expect(image.width == 32 && image.height == 16)
        #expect(image[8, 8].isNear(orange, tolerance: 4), "\(image[8, 8])")
        #expect(image[24, 8].isNear(Pixel(120, 120, 120), tolerance: 2), "\(image[24, 8])")
    }

    @Test func aJPEGShrunkALotIsDecodedReducedAndStillFiltered() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let black = Pixel(0, 0, 0)
        // Stripes 4 pixels wide: halved by the decoder's reduction, then averaged by the filter.
        let stripes = (0..<(256 * 128)).map { $0 % 256 / 4 % 2 == 0 ? black : Support.white }
        try Support.writeJPEG("\(folder)/stripes.jpg", width: 256, height: 128, pixels: stripes)

        let reduced = Resampler(width: 16, height: 8) { _, _ in }
        try ImageRows.read("\(folder)/stripes.jpg", maxPixels: 1 << 20, fit: (16, 8), into: reduced, stop: StopFlag())
        #expect(reduced.sourceWidth == 32 && reduced.sourceHeight == 16)
        let (_, output) = try await Self.combine(["stripes.jpg"], "size: 16x16", in: folder)
        let image = try #require(output)
        #expect(image.width == 16 && image.height == 16)
        for x in [0, 5, 8, 15] { #expect((100...155).contains(image[x, 8].r), "\(x): \(image[x, 8])") }
        #expect(image[8, 2] == Support.clear)
    }
}
