/// Text kept as UTF-8 bytes, for output too large to build as one `String`.
///
/// Appending bytes skips the `String` machinery that each `+=` goes through; a printer empties
/// the buffer into its output every `blockSize` bytes, so memory stays flat however long the
/// text is.
struct TextBuffer {
    static let blockSize = 1 << 16

    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(Self.blockSize + 4096) }

    var isFull: Bool { bytes.count >= Self.blockSize }

    /// Copies the string's UTF-8 in one go (appending its `utf8` view goes byte by byte).
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A number in decimal, without making a `String` of it.
    mutating func append(_ number: Int) {
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits = 1
        var power: UInt = 10
        while number.magnitude >= power {  // stops at 10^19 at the latest: Int.min has 19 digits
            digits += 1
            power *= 10
        }
        var rest = number.magnitude
        let end = bytes.count + digits
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        for index in stride(from: end - 1, through: end - digits, by: -1) {
            bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
    }

    /// Hands the bytes to `output` and starts over, keeping the storage.
    mutating func flush(to output: (UnsafeRawBufferPointer) -> Void) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { output($0) }
        bytes.removeAll(keepingCapacity: true)
    }
}
