import CImageCodec
import FlowModel

/// `format: image`: PNG and JPEG inputs laid out in cells of one size, each scaled to fit
/// and centred, composited over the background, written as one PNG (RGB over a colour,
/// RGBA over the default transparent background).
///
/// The cell is `size` if given, else the widest input's width by the tallest one's height.
/// Inputs are decoded one at a time, so memory holds the output and one input.
enum ImageCombiner {
    static func write(
        _ paths: [String], options: CombineAction.ImageOptions, maxPixels: Int, to output: AtomicOutputFile,
        control: CombineControl
    ) throws(CombineFailure) {
        var cellWidth = options.cellSize?.width ?? 0
        var cellHeight = options.cellSize?.height ?? 0
        if options.cellSize == nil {
            // Headers alone, which also refuses an oversized input before anything is decoded.
            for path in paths {
                let header = try DecodedImage(path: path, maxPixels: maxPixels, headerOnly: true)
                cellWidth = max(cellWidth, header.width)
                cellHeight = max(cellHeight, header.height)
            }
        }
        let grid = ImageGrid(count: paths.count, layout: options.layout, columns: options.columns,
                             cellWidth: cellWidth, cellHeight: cellHeight)
        let area = grid.width.multipliedReportingOverflow(by: grid.height)
        guard !area.overflow, area.partialValue <= maxPixels else {
            throw CombineFailure("the combined image would be \(grid.width)x\(grid.height), more than the ceiling of \(maxPixels) pixels")
        }
        let background = options.background.flatMap(Self.colour)
        let channels = background == nil ? 4 : 3
        var canvas = [UInt8](repeating: 0, count: grid.width * grid.height * channels)
        if let background {
            for pixel in 0..<(grid.width * grid.height) {
                canvas[pixel * 3] = background.0
                canvas[pixel * 3 + 1] = background.1
                canvas[pixel * 3 + 2] = background.2
            }
        }
        for (index, path) in paths.enumerated() {
            try control.checkCancelled()
            // The header first: where the image goes decides how reduced a JPEG may be decoded.
            let header = try DecodedImage(path: path, maxPixels: maxPixels, headerOnly: true)
            guard header.width > 0, header.height > 0 else { throw CombineFailure("input \(path): image is empty") }
            let place = grid.placement(of: index, width: header.width, height: header.height)
            let image = try DecodedImage(path: path, maxPixels: maxPixels, fit: (place.width, place.height), control: control)
            try Resampler.resize(image, width: place.width, height: place.height, control: control) { y, row in
                composite(row, at: (place.x, place.y + y), onto: &canvas, canvasWidth: grid.width, background: background)
            }
            control.progress(Int64(index + 1), of: Int64(paths.count), .entries)
        }
        try control.checkCancelled()
        var message = [CChar](repeating: 0, count: 512)
        let status = canvas.withUnsafeBufferPointer {
            flowrun_png_encode(output.descriptor, UInt32(grid.width), UInt32(grid.height), Int32(channels),
                               $0.baseAddress, CombineControl.isCancelled, control.opaque, &message, message.count)
        }
        if status == FLOWRUN_IMAGE_STOPPED { throw .cancelled }
        guard status == 0 else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw CombineFailure("cannot write \(output.destination): \(text)")
        }
        control.progress(Int64(paths.count), of: Int64(paths.count), .entries, final: true)
    }

    /// Source-over in sRGB-encoded values (no linearisation): one premultiplied `row` over the
    /// opaque background, or, with none, kept as straight RGBA.
    private static func composite(
        _ row: [Float], at origin: (x: Int, y: Int), onto canvas: inout [UInt8], canvasWidth: Int,
        background: (UInt8, UInt8, UInt8)?
    ) {
        func byte(_ value: Float) -> UInt8 { UInt8(min(max(value * 255, 0), 255).rounded()) }
        let under = background.map { [Float($0.0) / 255, Float($0.1) / 255, Float($0.2) / 255] }
        for x in 0..<(row.count / 4) {
            let alpha = row[x * 4 + 3]
            let pixel = origin.y * canvasWidth + origin.x + x
            if let under {
                for channel in 0..<3 { canvas[pixel * 3 + channel] = byte(row[x * 4 + channel] + under[channel] * (1 - alpha)) }
            } else if alpha >= 0.5 / 255 {
                for channel in 0..<3 { canvas[pixel * 4 + channel] = byte(row[x * 4 + channel] / alpha) }
                canvas[pixel * 4 + 3] = byte(alpha)
            }
        }
    }

    /// `#RRGGBB` (the loader has checked the form).
    static func colour(_ text: String) -> (UInt8, UInt8, UInt8)? {
        guard text.count == 7, text.hasPrefix("#"), let value = UInt32(text.dropFirst(), radix: 16) else { return nil }
        return (UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff))
    }
}
