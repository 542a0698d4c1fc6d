import CImageCodec
import FlowFiles

/// The combined image being built: 8-bit RGB over an opaque background colour, or RGBA over
/// the default transparent one, that scaled rows are composited onto and that is written as
/// one PNG.
final class ImageCanvas {
    let width: Int
    let height: Int
    private let background: (UInt8, UInt8, UInt8)?
    /// The background in 0...1, for compositing.
    private let under: [Float]?
    private var pixels: [UInt8]

    var channels: Int { background == nil ? 4 : 3 }

    init(width: Int, height: Int, background: (UInt8, UInt8, UInt8)?) {
        self.width = width
        self.height = height
        self.background = background
        under = background.map { [Float($0.0) / 255, Float($0.1) / 255, Float($0.2) / 255] }
        pixels = [UInt8](repeating: 0, count: width * height * (background == nil ? 4 : 3))
        if let background {
            for pixel in 0..<(width * height) {
                pixels[pixel * 3] = background.0
                pixels[pixel * 3 + 1] = background.1
                pixels[pixel * 3 + 2] = background.2
            }
        }
    }

    /// Source-over in sRGB-encoded values (no linearisation): one premultiplied RGBA `row`
    /// (0...1) over the opaque background, or, with none, stored as straight RGBA.
    func composite(_ row: UnsafeBufferPointer<Float>, at origin: (x: Int, y: Int)) {
        func byte(_ value: Float) -> UInt8 { UInt8(min(max(value * 255, 0), 255).rounded()) }
        for x in 0..<(row.count / 4) {
            let alpha = row[x * 4 + 3]
            let pixel = origin.y * width + origin.x + x
            if let under {
                for channel in 0..<3 { pixels[pixel * 3 + channel] = byte(row[x * 4 + channel] + under[channel] * (1 - alpha)) }
            } else if alpha >= 0.5 / 255 {
                for channel in 0..<3 { pixels[pixel * 4 + channel] = byte(row[x * 4 + channel] / alpha) }
                pixels[pixel * 4 + 3] = byte(alpha)
            }
        }
    }

    /// Writes the canvas as a PNG to `output`; a `stop` stops it within 32 rows.
    func write(to output: CombineOutput, stop: StopFlag) throws(ActionFailure) {
        var message = [CChar](repeating: 0, count: 512)
        let status = pixels.withUnsafeBufferPointer {
            flowrun_png_encode(
                output.descriptor, UInt32(width), UInt32(height), Int32(channels),
                $0.baseAddress, StopFlag.isStoppedForC, stop.opaque, CombineOutput.wrote, output.opaque,
                &message, message.count)
        }
        if status == FLOWRUN_IMAGE_STOPPED { throw .cancelled }
        guard status == 0 else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ActionFailure("cannot write \(output.destination): \(text)")
        }
    }
}
