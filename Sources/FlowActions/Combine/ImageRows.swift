import CImageCodec

/// Decodes a PNG or JPEG row by row into a `Resampler`, so that the image is never held whole
/// (but for an interlaced PNG, inside the codec).
enum ImageRows {
    /// `fit`: the size the image is scaled to, so that a JPEG may be decoded reduced.
    static func read(
        _ path: String, maxPixels: Int, fit: (width: Int, height: Int), into resampler: Resampler, stop: StopFlag
    ) throws(ActionFailure) {
        let sink = flowrun_row_sink(
            begin: { context, width, height in
                Unmanaged<Resampler>.fromOpaque(context!).takeUnretainedValue().begin(width: Int(width), height: Int(height))
                return 0
            },
            row: { context, y, pixels in
                Unmanaged<Resampler>.fromOpaque(context!).takeUnretainedValue().accept(Int(y), pixels!)
                return 0
            },
            context: Unmanaged.passUnretained(resampler).toOpaque())
        var message = [CChar](repeating: 0, count: 512)
        let status = withExtendedLifetime(resampler) {
            flowrun_image_read(
                path, UInt64(maxPixels), UInt32(fit.width), UInt32(fit.height), StopFlag.isStoppedForC,
                stop.opaque, sink, &message, message.count)
        }
        if status == FLOWRUN_IMAGE_STOPPED { throw .cancelled }
        guard status == 0 else {
            throw ActionFailure("input \(path): \(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
        }
    }
}
