import CImageCodec

/// A PNG or JPEG decoded to 8-bit RGBA (straight alpha), by libpng or libjpeg-turbo through
/// the C shim, which keeps their longjmp-based error handling away from Swift frames.
final class DecodedImage {
    /// The decoded size: smaller than the header's for a JPEG decoded reduced (`fit`).
    let width: Int
    let height: Int
    private var image: flowrun_image

    /// Decodes `path`, or with `headerOnly` only reads its size (then `pixels` is empty).
    /// An image claiming more than `maxPixels` pixels is refused before it is decoded. A
    /// cancel of `control` stops the decoding within a few rows. `fit` is the size the image
    /// will be shrunk to, if known: a JPEG is then decoded reduced where it can be.
    init(
        path: String, maxPixels: Int, headerOnly: Bool = false, fit: (width: Int, height: Int)? = nil,
        control: CombineControl? = nil
    ) throws(CombineFailure) {
        var image = flowrun_image()
        var message = [CChar](repeating: 0, count: 512)
        let status = withExtendedLifetime(control) {
            flowrun_image_decode(
                path, UInt64(maxPixels), headerOnly ? 1 : 0, UInt32(fit?.width ?? 0), UInt32(fit?.height ?? 0),
                control == nil ? nil : CombineControl.isCancelled, control?.opaque, &image, &message, message.count)
        }
        if status == FLOWRUN_IMAGE_STOPPED { throw .cancelled }
        guard status == 0 else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw CombineFailure("input \(path): \(text)")
        }
        self.image = image
        width = Int(image.width)
        height = Int(image.height)
    }

    deinit { flowrun_image_free(&image) }

    /// `width * height * 4` bytes, rows top to bottom; empty for a header read alone.
    var pixels: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: image.pixels, count: image.pixels == nil ? 0 : width * height * 4)
    }
}
