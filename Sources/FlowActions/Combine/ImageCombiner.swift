import FlowFiles
import FlowModel

/// `format: image`: PNG and JPEG inputs laid out in cells of one size, each scaled to fit
/// and centred, composited over the background, written as one PNG (RGB over a colour,
/// RGBA over the default transparent background).
///
/// The cell is `size` if given, else the widest input's width by the tallest one's height.
/// Inputs are decoded one at a time and row by row, so memory holds the output and the few
/// rows of one input its vertical filter spans (`Resampler`).
enum ImageCombiner {
    static func write(
        _ paths: [String], options: CombineAction.ImageOptions, maxPixels: Int, to output: CombineOutput,
        stop: StopFlag, progress: ProgressThrottle
    ) throws(ActionFailure) {
        var cellWidth = options.cellSize?.width ?? 0
        var cellHeight = options.cellSize?.height ?? 0
        if options.cellSize == nil {
            // Headers alone, which also refuses an oversized input before anything is decoded.
            for path in paths {
                let header = try ImageHeader(path: path, maxPixels: maxPixels)
                cellWidth = max(cellWidth, header.width)
                cellHeight = max(cellHeight, header.height)
            }
        }
        let grid = ImageGrid(
            count: paths.count, layout: options.layout, columns: options.columns,
            cellWidth: cellWidth, cellHeight: cellHeight)
        let area = grid.width.multipliedReportingOverflow(by: grid.height)
        guard !area.overflow, area.partialValue <= maxPixels else {
            throw ActionFailure("the combined image would be \(grid.width)x\(grid.height), more than the ceiling of \(maxPixels) pixels")
        }
        let canvas = ImageCanvas(width: grid.width, height: grid.height, background: options.background.flatMap(Self.colour))
        for (index, path) in paths.enumerated() {
            try stop.throwIfStopped()
            // The header first: where the image goes decides how reduced a JPEG may be decoded.
            let header = try ImageHeader(path: path, maxPixels: maxPixels)
            guard header.width > 0, header.height > 0 else { throw ActionFailure("input \(path): image is empty") }
            let place = grid.placement(of: index, width: header.width, height: header.height)
            let resampler = Resampler(width: place.width, height: place.height) { y, row in
                canvas.composite(row, at: (place.x, place.y + y))
            }
            try ImageRows.read(path, maxPixels: maxPixels, fit: (place.width, place.height), into: resampler, stop: stop)
            try resampler.finish(stop: stop)
            progress.report(Int64(index + 1), Int64(paths.count))
        }
        try stop.throwIfStopped()
        try canvas.write(to: output, stop: stop)
    }

    /// `#RRGGBB` (the loader has checked the form).
    static func colour(_ text: String) -> (UInt8, UInt8, UInt8)? {
        guard text.count == 7, text.hasPrefix("#"), let value = UInt32(text.dropFirst(), radix: 16) else { return nil }
        return (UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff))
    }
}
