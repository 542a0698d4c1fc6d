import Foundation

/// Scales RGBA images with a separable Lanczos-3 filter, widened by the reduction factor when
/// shrinking (so that every source pixel contributes, as an area filter would), in
/// premultiplied alpha so that transparent pixels' colours do not bleed into edges.
///
/// Values stay sRGB-encoded: the filter runs on the encoded values, as the issue asks of the
/// compositing.
enum Resampler {
    static let radius = 3.0

    /// Calls `emit` with each row of the result, top to bottom: premultiplied RGBA, 0...1,
    /// clamped (Lanczos overshoots at sharp edges). The rows go out one at a time, and an
    /// image its cell's size is not filtered at all, so no float copy of the result is held.
    /// Checks for a cancel every 64 source rows.
    static func resize(
        _ image: DecodedImage, width: Int, height: Int, control: CombineControl,
        emit: (_ y: Int, _ row: [Float]) -> Void
    ) throws(CombineFailure) {
        let pixels = image.pixels
        var row = [Float](repeating: 0, count: image.width * 4)
        func premultiply(_ y: Int) {
            let start = y * image.width * 4
            for x in 0..<image.width {
                let alpha = Float(pixels[start + x * 4 + 3]) / 255
                for channel in 0..<3 { row[x * 4 + channel] = Float(pixels[start + x * 4 + channel]) / 255 * alpha }
                row[x * 4 + 3] = alpha
            }
        }
        if width == image.width && height == image.height {
            for y in 0..<height {
                if y % 64 == 0 { try control.checkCancelled() }
                premultiply(y)
                emit(y, row)
            }
            return
        }
        let across = weights(from: image.width, to: width)
        let down = weights(from: image.height, to: height)
        // Across first, row by row from the 8-bit source, so that no float copy of a large
        // source is ever made: the intermediate is `width` by the source's height.
        var middle = [Float](repeating: 0, count: width * image.height * 4)
        for y in 0..<image.height {
            if y % 64 == 0 { try control.checkCancelled() }
            premultiply(y)
            for x in 0..<width {
                let tap = across[x]
                var sum: (Float, Float, Float, Float) = (0, 0, 0, 0)
                for (offset, weight) in tap.weights.enumerated() {
                    let source = (tap.first + offset) * 4
                    sum.0 += row[source] * weight
                    sum.1 += row[source + 1] * weight
                    sum.2 += row[source + 2] * weight
                    sum.3 += row[source + 3] * weight
                }
                let target = (y * width + x) * 4
                middle[target] = sum.0
                middle[target + 1] = sum.1
                middle[target + 2] = sum.2
                middle[target + 3] = sum.3
            }
        }
        var result = [Float](repeating: 0, count: width * 4)
        for y in 0..<height {
            if y % 64 == 0 { try control.checkCancelled() }
            for index in result.indices { result[index] = 0 }
            let tap = down[y]
            for (offset, weight) in tap.weights.enumerated() {
                let source = (tap.first + offset) * width * 4
                for index in 0..<(width * 4) { result[index] += middle[source + index] * weight }
            }
            for pixel in stride(from: 0, to: result.count, by: 4) {
                let alpha = min(max(result[pixel + 3], 0), 1)
                result[pixel + 3] = alpha
                for channel in 0..<3 { result[pixel + channel] = min(max(result[pixel + channel], 0), alpha) }
            }
            emit(y, result)
        }
    }

    struct Tap {
        var first: Int
        var weights: [Float]
    }

    /// For each target position, the source positions it reads and their normalised weights.
    static func weights(from source: Int, to target: Int) -> [Tap] {
        let scale = Double(source) / Double(target)
        let widening = max(scale, 1)
        let support = radius * widening
        return (0..<target).map { position in
            let centre = (Double(position) + 0.5) * scale
            let first = max(0, Int((centre - support).rounded(.down)))
            let last = min(source - 1, Int((centre + support).rounded(.up)))
            var weights = (first...last).map { lanczos((Double($0) + 0.5 - centre) / widening) }
            let sum = weights.reduce(0, +)
            if sum != 0 { weights = weights.map { $0 / sum } }
            return Tap(first: first, weights: weights.map(Float.init))
        }
    }

    static func lanczos(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < radius else { return 0 }
        let pix = Double.pi * x
        return radius * sin(pix) * sin(pix / radius) / (pix * pix)
    }
}
