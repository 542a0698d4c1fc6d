import CImageFixtures
import FlowEngine
import FlowModel
import Foundation
import Testing

@testable import FlowActions

/// Every PNG colour type and bit depth, interlaced or not, read exactly; corrupt, truncated and
/// oversized inputs refused with a clear error.
@Suite struct CombineImageInputTests {
    typealias Support = CombineTestSupport
    typealias Pixel = CombineTestSupport.Pixel

    /// One PNG format: colour type and bit depth, with what each pixel's samples mean.
    struct Format: CustomStringConvertible, Sendable {
        var colourType: Int
        var bitDepth: Int
        var transparentColour: [UInt16]? = nil
        var interlaced = false

        var description: String {
            "type \(colourType) depth \(bitDepth)\(transparentColour == nil ? "" : " tRNS")\(interlaced ? " Adam7" : "")"
        }

        var samplesPerPixel: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colourType]! }
        var maximum: Int { (1 << bitDepth) - 1 }

        static let palette: [UInt8] = (0..<16).flatMap { (entry: Int) -> [UInt8] in
            let red = entry * 16, green = 255 - entry * 9, blue = entry * 5 + 3
            return [UInt8(red), UInt8(green), UInt8(blue)]
        }
        static let paletteAlpha: [UInt8] = [0, 60, 255, 128, 200]

        /// Sample `channel` of pixel `index`: spread over the range; 16-bit ones are multiples of
        /// 257 so that their 8-bit value is exact.
        func sample(_ index: Int, _ channel: Int) -> Int {
            if colourType == 3 { return (index * 7 + 1) % min(16, maximum + 1) }
            let spread = (index * 37 + channel * 91 + 11) % 256
            switch bitDepth {
            case 16: return spread * 257
            case 8: return spread
            default: return spread % (maximum + 1)
            }
        }

        /// The 8-bit RGBA flowrun should decode pixel `index` to.
        func expected(_ index: Int) -> Pixel {
            let samples = (0..<samplesPerPixel).map { sample(index, $0) }
            func eight(_ value: Int) -> UInt8 { UInt8(value * 255 / maximum) }
            switch colourType {
            case 3:
                let entry = samples[0]
                let alpha = entry < Self.paletteAlpha.count ? Self.paletteAlpha[entry] : 255
                return Pixel(Self.palette[entry * 3], Self.palette[entry * 3 + 1], Self.palette[entry * 3 + 2], alpha)
            case 0, 2:
                let transparent = transparentColour.map { $0.map(Int.init) == samples } ?? false
                let rgb = colourType == 0 ? [samples[0], samples[0], samples[0]] : samples
                return Pixel(eight(rgb[0]), eight(rgb[1]), eight(rgb[2]), transparent ? 0 : 255)
            case 4:
                return Pixel(eight(samples[0]), eight(samples[0]), eight(samples[0]), eight(samples[1]))
            default:
                return Pixel(eight(samples[0]), eight(samples[1]), eight(samples[2]), eight(samples[3]))
            }
        }

        /// The rows as the PNG stores them: sub-byte samples packed from the high bit, 16-bit
        /// big endian.
        func rows(width: Int, height: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            for y in 0..<height {
                var bits: [Int] = []
                for x in 0..<width {
                    for channel in 0..<samplesPerPixel { bits.append(sample(y * width + x, channel)) }
                }
                switch bitDepth {
                case 16: bytes += bits.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
                case 8: bytes += bits.map(UInt8.init)
                default:
                    let perByte = 8 / bitDepth
                    for start in stride(from: 0, to: bits.count, by: perByte) {
                        var byte = 0
                        for slot in 0..<perByte {
                            let value = start + slot < bits.count ? bits[start + slot] : 0
                            byte |= value << (8 - bitDepth * (slot + 1))
                        }
                        bytes.append(UInt8(byte))
                    }
                }
            }
            return bytes
        }
    }

    static let formats: [Format] = {
        let plain: [Format] = [
            Format(colourType: 0, bitDepth: 1), Format(colourType: 0, bitDepth: 2), Format(colourType: 0, bitDepth: 4),
            Format(colourType: 0, bitDepth: 8), Format(colourType: 0, bitDepth: 16),
            Format(colourType: 0, bitDepth: 8, transparentColour: [48]),
            Format(colourType: 2, bitDepth: 8), Format(colourType: 2, bitDepth: 16),
            Format(colourType: 2, bitDepth: 8, transparentColour: [11, 102, 193]),
            Format(colourType: 3, bitDepth: 1), Format(colourType: 3, bitDepth: 2), Format(colourType: 3, bitDepth: 4),
            Format(colourType: 3, bitDepth: 8),
            Format(colourType: 4, bitDepth: 8), Format(colourType: 4, bitDepth: 16),
            Format(colourType: 6, bitDepth: 8), Format(colourType: 6, bitDepth: 16),
        ]
        return plain
            + plain.map {
                var format = $0; format.interlaced = true; return format
            }
    }()

    @Test(arguments: formats)
    func everyColourTypeAndBitDepthIsReadExactly(format: Format) async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Odd sizes, so that every Adam7 pass is partial.
        let (width, height) = (7, 5)
        let paletteSize = format.colourType == 3 ? min(16, format.maximum + 1) : 0
        try Support.writePNG(
            "\(folder)/in.png", width: width, height: height, bitDepth: format.bitDepth,
            colourType: format.colourType, rows: format.rows(width: width, height: height),
            interlaced: format.interlaced, palette: Array(Format.palette.prefix(paletteSize * 3)),
            paletteAlpha: format.colourType == 3 ? Array(Format.paletteAlpha.prefix(paletteSize)) : [],
            transparentColour: format.transparentColour)

        let (attempt, output) = try await CombineImageTests.combine(["in.png"], in: folder)

        #expect(attempt.result == .succeeded, "\(attempt.result as Any)")
        let image = try #require(output)
        #expect(image.width == width && image.height == height)
        var sawTransparent = false
        for y in 0..<height {
            for x in 0..<width {
                var expected = format.expected(y * width + x)
                if expected.a == 0 { expected = Support.clear; sawTransparent = true }
                #expect(image[x, y].isNear(expected, tolerance: 1), "(\(x), \(y)): \(image[x, y]) is not \(expected)")
            }
        }
        if format.transparentColour != nil || format.colourType == 3 { #expect(sawTransparent) }
    }

    /// The first `count` bytes of the file at `path`, written back over it.
    static func truncate(_ path: String, to count: Int) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(count).write(to: URL(fileURLWithPath: path))
    }

    static func pattern(_ width: Int, _ height: Int) -> [Pixel] {
        (0..<(width * height)).map { (index: Int) -> Pixel in
            let red = index * 7 % 256, green = index * 13 % 256, blue = index * 29 % 256
            return Pixel(UInt8(red), UInt8(green), UInt8(blue))
        }
    }

    @Test func truncatedAndCorruptImagesFailTheTaskNamingTheInput() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.writePNG("\(folder)/short.png", width: 64, height: 64, pixels: Self.pattern(64, 64))
        let size = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/short.png")).count
        try Self.truncate("\(folder)/short.png", to: size / 2)
        try Support.writePNG("\(folder)/flipped.png", width: 64, height: 64, pixels: Self.pattern(64, 64))
        var flipped = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/flipped.png"))
        flipped[flipped.count / 2] ^= 0xff
        try flipped.write(to: URL(fileURLWithPath: "\(folder)/flipped.png"))
        flipped[flipped.count / 2] ^= 0xff
        flipped[flipped.count - 1] ^= 0xff
        try flipped.write(to: URL(fileURLWithPath: "\(folder)/bad-end.png"))
        for progressive in [false, true] {
            let name = progressive ? "short-progressive.jpg" : "short.jpg"
            try Support.writeJPEG("\(folder)/\(name)", width: 64, height: 64, pixels: Self.pattern(64, 64), progressive: progressive)
            let size = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)")).count
            try Self.truncate("\(folder)/\(name)", to: size * 2 / 3)
        }
        try Support.write("just text", to: "\(folder)/text.png")

        let expectations = [
            ("short.png", "the PNG ends early (truncated"), ("flipped.png", "flipped.png"), ("bad-end.png", "IEND: CRC error"),
            ("short.jpg", "Premature end of JPEG file"),
            ("short-progressive.jpg", "Premature end of JPEG file"), ("text.png", "not a PNG or JPEG image"),
        ]
        for (name, message) in expectations {
            let (attempt, _) = try await CombineImageTests.combine([name], "background: \"#000000\"", in: folder)
            let reason = try #require(Support.failureReason(attempt), "\(name) was accepted")
            #expect(reason.contains("\(folder)/\(name)") && reason.contains(message), "\(name): \(reason)")
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/out.png"))
        }
        #expect(Support.contents(of: folder).allSatisfy { !$0.hasPrefix(".") })
    }

    /// A CMYK JPEG (as print workflows and Photoshop save them) is refused from its header,
    /// in words a user can act on, not libjpeg's "Unsupported color conversion request".
    @Test func aCMYKJPEGIsRefusedSayingSo() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cmyk = [UInt8](repeating: 40, count: 16 * 16 * 4)
        #expect(fixture_write_jpeg("\(folder)/print.jpg", 16, 16, 4, cmyk, 90, 0) == 0)

        let (attempt, _) = try await CombineImageTests.combine(["print.jpg"], "background: \"#000000\"", in: folder)

        let reason = try #require(Support.failureReason(attempt), "a CMYK JPEG was accepted")
        #expect(reason == "input \(folder)/print.jpg: the JPEG is CMYK, which combine does not read: convert it to RGB first")
        #expect(Support.contents(of: folder) == ["print.jpg"])
    }

    /// A PNG of well-formed chunks (right CRCs, an IEND) whose IDAT holds `rows` of the
    /// `height` rows IHDR promises, 8-bit RGB, in a zlib stream of stored blocks.
    static func pngMissingRows(width: Int, height: Int, rows: Int) -> [UInt8] {
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xffff_ffff
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
            }
            return ~crc
        }
        func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(value >> $0 & 0xff) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        var raw: [UInt8] = []
        for y in 0..<rows {
            raw.append(0)  // filter type: none
            for x in 0..<(width * 3) { raw.append(UInt8((x * 7 + y * 13) % 256)) }
        }
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        var zlib: [UInt8] = [0x78, 0x01]
        for start in stride(from: 0, to: raw.count, by: 65535) {
            let block = Array(raw[start..<min(raw.count, start + 65535)])
            let length = UInt16(block.count), complement = ~UInt16(block.count)
            let final: UInt8 = start + 65535 >= raw.count ? 1 : 0
            zlib += [final, UInt8(length & 0xff), UInt8(length >> 8), UInt8(complement & 0xff), UInt8(complement >> 8)]
            zlib += block
        }
        zlib += bigEndian(b << 16 | a)
        let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    @Test func aPNGWhoseDataEndsBeforeItsLastRowFailsThoughItsChunksAreWhole() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(Self.pngMissingRows(width: 16, height: 16, rows: 16)).write(to: URL(fileURLWithPath: "\(folder)/whole.png"))
        try Data(Self.pngMissingRows(width: 16, height: 16, rows: 9)).write(to: URL(fileURLWithPath: "\(folder)/short.png"))

        let (whole, _) = try await CombineImageTests.combine(["whole.png"], in: folder)
        #expect(whole.result == .succeeded, "\(whole.result as Any)")
        let (short, _) = try await CombineImageTests.combine(["short.png"], in: folder)
        let reason = try #require(Support.failureReason(short))
        #expect(reason.contains("short.png") && reason.contains("Not enough image data"), "\(reason)")
    }

    @Test func anImageClaimingMorePixelsThanTheCeilingIsRefusedFromItsHeader() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Cut right after the header: only a check of the header alone can give the ceiling
        // as the reason (decoding would find the file truncated).
        try Support.writePNG("\(folder)/big.png", width: 20, height: 20, pixels: Self.pattern(20, 20))
        try Self.truncate("\(folder)/big.png", to: 8 + 25)
        try Support.writeJPEG("\(folder)/big.jpg", width: 20, height: 20, pixels: Self.pattern(20, 20))
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/big.jpg"))
        let scan = try #require((0..<(jpeg.count - 3)).first { jpeg[$0] == 0xff && jpeg[$0 + 1] == 0xda })
        try Self.truncate("\(folder)/big.jpg", to: scan + 2 + Int(jpeg[scan + 2]) << 8 + Int(jpeg[scan + 3]))
        let runner = CombineRunner(loop: SerialQueueLoop(), maxPixels: 399)

        for name in ["big.png", "big.jpg"] {
            for size in ["", "size: 4x4"] {
                let (attempt, _) = try await CombineImageTests.combine([name], size, in: folder, runner: runner)
                let reason = try #require(Support.failureReason(attempt))
                #expect(reason.contains("\(folder)/\(name)") && reason.contains("20x20") && reason.contains("ceiling"), "\(reason)")
            }
        }

        try Support.writePNG("\(folder)/small.png", width: 4, height: 4, pixels: Self.pattern(4, 4))
        let (attempt, _) = try await CombineImageTests.combine(["small.png"], "size: 20x20", in: folder, runner: runner)
        let reason = try #require(Support.failureReason(attempt))
        #expect(reason.contains("combined image would be 20x20"), "\(reason)")
    }

    /// libpng reads no PNG over 1,000,000 rows (or columns), its default user limit, though
    /// it is under the pixel ceiling: combine said only libpng's "Invalid IHDR data". It says
    /// the image is taller (or wider) than libpng reads, naming the input, from the header.
    @Test func aPNGTallerThanLibpngReadsIsRefusedSayingSo() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(Self.pngMissingRows(width: 1, height: 1_000_001, rows: 1)).write(to: URL(fileURLWithPath: "\(folder)/tall.png"))
        try Data(Self.pngMissingRows(width: 1_000_001, height: 1, rows: 0)).write(to: URL(fileURLWithPath: "\(folder)/wide.png"))

        for size in ["", "size: 4x4"] {
            let (tall, _) = try await CombineImageTests.combine(["tall.png"], size, in: folder)
            #expect(
                Support.failureReason(tall)
                    == "input \(folder)/tall.png: the image is 1x1000001, taller than libpng reads (1000000 rows at most)")
            let (wide, _) = try await CombineImageTests.combine(["wide.png"], size, in: folder)
            #expect(
                Support.failureReason(wide)
                    == "input \(folder)/wide.png: the image is 1000001x1, wider than libpng reads (1000000 columns at most)")
        }
        #expect(Support.contents(of: folder) == ["tall.png", "wide.png"])
    }

    @Test func aCancelStopsTheDecodingOfALargeImageWithinAFewRows() throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (width, height) = (16, 512)
        try Support.writePNG("\(folder)/tall.png", width: width, height: height, pixels: Self.pattern(width, height))
        try Support.writePNG("\(folder)/tall-adam7.png", width: width, height: height, pixels: Self.pattern(width, height), interlaced: true)
        try Support.writeJPEG("\(folder)/tall.jpg", width: width, height: height, pixels: Self.pattern(width, height))
        try Support.writeJPEG(
            "\(folder)/tall-progressive.jpg", width: width, height: height, pixels: Self.pattern(width, height),
            progressive: true)
        let cancelled = StopFlag()
        cancelled.stop()

        for name in ["tall.png", "tall-adam7.png", "tall.jpg", "tall-progressive.jpg"] {
            let path = "\(folder)/\(name)"
            let rows = LockedBox(0)
            let resampler = Resampler(width: width, height: height) { _, _ in rows.update { $0 += 1 } }
            #expect(throws: ActionFailure.cancelled, "\(name)") {
                try ImageRows.read(path, maxPixels: 1 << 20, fit: (width, height), into: resampler, stop: cancelled)
            }
            #expect(rows.value < 64, "\(name): \(rows.value) rows")
            rows.update { $0 = 0 }
            let whole = Resampler(width: width, height: height) { _, _ in rows.update { $0 += 1 } }
            try ImageRows.read(path, maxPixels: 1 << 20, fit: (width, height), into: whole, stop: StopFlag())
            #expect(rows.value == height)
        }
    }
}
