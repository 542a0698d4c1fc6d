import Foundation

/// Scales RGBA images with a separable Lanczos-3 filter, widened by the reduction factor when
/// shrinking (so that every source pixel contributes, as an area filter would), in
/// premultiplied alpha so that transparent pixels' colours do not bleed into edges.
///
/// Values stay sRGB-encoded: the filter runs on the encoded values, as the issue asks of the
/// compositing.
final class Resampler {
    static let radius = 3.0

    private let width: Int
    private let height: Int
    private let emit: (_ y: Int, _ row: UnsafeBufferPointer<Float>) -> Void
    private(set) var sourceWidth = 0
    private(set) var sourceHeight = 0
    private var across: [Tap] = []
    private var down: [Tap] = []
    /// One source row, premultiplied.
    private var row: [Float] = []
    /// The last source rows filtered across, `width` each, in a ring of as many rows as one
    /// target row's vertical filter spans (6, or 6 times the reduction factor, and the edges):
    /// empty for a source of the target's size, which is passed on unfiltered.
    private var window: [Float] = []
    private var windowRows = 0
    /// The next target row to emit, once the source rows its filter reads have come.
    private var nextRow = 0
    private var result: [Float] = []

    /// Scales to `width` by `height`; `emit` gets each row of the result, top to bottom:
    /// premultiplied RGBA, 0...1, clamped (Lanczos overshoots at sharp edges).
    init(width: Int, height: Int, emit: @escaping (_ y: Int, _ row: UnsafeBufferPointer<Float>) -> Void) {
        self.width = width
        self.height = height
        self.emit = emit
    }

    private var isIdentity: Bool { sourceWidth == width && sourceHeight == height }

    /// The source's size, before its first row.
    func begin(width sourceWidth: Int, height sourceHeight: Int) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        row = [Float](repeating: 0, count: sourceWidth * 4)
        guard !isIdentity else { return }
        across = Self.weights(from: sourceWidth, to: width)
        down = Self.weights(from: sourceHeight, to: height)
        windowRows = max(1, down.map(\.weights.count).max() ?? 1)
        window = [Float](repeating: 0, count: width * windowRows * 4)
        result = [Float](repeating: 0, count: width * 4)
        nextRow = 0
    }

    /// Source row `y` (8-bit straight RGBA), filtered across as it comes, then down into every
    /// target row whose filter it completes, so that the source is never held whole; a source of
    /// the target's size goes straight to `emit`.
    func accept(_ y: Int, _ pixels: UnsafePointer<UInt8>) {
        for x in 0..<sourceWidth {
            let alpha = Float(pixels[x * 4 + 3]) / 255
            for channel in 0..<3 { row[x * 4 + channel] = Float(pixels[x * 4 + channel]) / 255 * alpha }
            row[x * 4 + 3] = alpha
        }
        if isIdentity {
            row.withUnsafeBufferPointer { emit(y, $0) }
            return
        }
        let slot = y % windowRows * width * 4
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
            let target = slot + x * 4
            window[target] = sum.0
            window[target + 1] = sum.1
            window[target + 2] = sum.2
            window[target + 3] = sum.3
        }
        // The taps' last rows never decrease: each target row is emitted at the source row
        // that completes it, when its first row is still in the ring.
        while nextRow < height, down[nextRow].first + down[nextRow].weights.count - 1 <= y {
            emitRow(nextRow)
            nextRow += 1
        }
    }

    private func emitRow(_ y: Int) {
        for index in result.indices { result[index] = 0 }
        let tap = down[y]
        for (offset, weight) in tap.weights.enumerated() {
            let source = (tap.first + offset) % windowRows * width * 4
            for index in 0..<(width * 4) { result[index] += window[source + index] * weight }
        }
        for pixel in stride(from: 0, to: result.count, by: 4) {
            let alpha = min(max(result[pixel + 3], 0), 1)
            result[pixel + 3] = alpha
            for channel in 0..<3 { result[pixel + channel] = min(max(result[pixel + channel], 0), alpha) }
        }
        result.withUnsafeBufferPointer { emit(y, $0) }
    }

    /// After the last source row: every target row has been emitted by then (the decoders
    /// give every row or fail); a cancel is checked once more.
    func finish(stop: StopFlag) throws(ActionFailure) {
        try stop.throwIfStopped()
        guard !isIdentity, nextRow < height else { return }
        throw ActionFailure("the image gave \(sourceHeight) rows but its filter wanted more (\(nextRow) of \(height) rows made)")
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
