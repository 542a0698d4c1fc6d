/// Where whole lines of bytes are written (`DescriptorWriter`, `BatchedWriter`): each writes raw
/// bytes its own way, and takes arrays and text through them.
package protocol ByteSink {
    func write(_ bytes: UnsafeRawBufferPointer)
}

extension ByteSink {
    package func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    package func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }
}
