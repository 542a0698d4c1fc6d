import CImageCodec

/// The size a PNG or JPEG's header gives, read without decoding any pixel.
struct ImageHeader {
    let width: Int
    let height: Int

    /// An image claiming more than `maxPixels` pixels is refused.
    init(path: String, maxPixels: Int) throws(ActionFailure) {
        var width: UInt32 = 0, height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 512)
        guard flowrun_image_header(path, UInt64(maxPixels), &width, &height, &message, message.count) == 0 else {
            throw ActionFailure("input \(path): \(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
        }
        self.width = Int(width)
        self.height = Int(height)
    }
}
