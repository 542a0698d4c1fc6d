import FlowEvents

/// Text kept as UTF-8 bytes, for output too large to build as one `String`.
///
/// An append is a `memcpy` into storage of its own, not the `String` (or `Array`) machinery;
/// the storage starts at `initialSize` bytes and doubles as needed. A printer describes a
/// bounded part of its text in each buffer (a chunk of tasks), so memory stays bounded however
/// long the whole text is.
struct TextBuffer: ~Copyable {
    static let initialSize = 1 << 17

    private var storage: UnsafeMutableRawBufferPointer
    private var count = 0

    init() {
        storage = .allocate(byteCount: Self.initialSize, alignment: 1)
    }

    deinit { storage.deallocate() }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if count + bytes.count > storage.count {
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * (count + bytes.count), alignment: 1)
            larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[..<count]))
            storage.deallocate()
            storage = larger
        }
        UnsafeMutableRawBufferPointer(rebasing: storage[count...]).copyMemory(from: bytes)
        count += bytes.count
    }

    /// A number in decimal, without making a `String` of it.
    mutating func append(_ number: Int) {
        DecimalDigits.withBytes(of: Int64(number)) { append($0) }
    }

    /// A copy of the bytes appended so far.
    var bytes: [UInt8] { Array(UnsafeRawBufferPointer(rebasing: storage[..<count])) }

    /// Hands the bytes to `output` and starts over, keeping the storage.
    mutating func flush(to output: (UnsafeRawBufferPointer) -> Void) {
        guard count > 0 else { return }
        output(UnsafeRawBufferPointer(rebasing: storage[..<count]))
        count = 0
    }
}
