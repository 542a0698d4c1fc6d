/// Cuts a byte stream into lines: `\n` ends a line (a `\r` before it is dropped), a last line
/// without a newline still arrives at `flush`, and a line longer than `maxLineBytes` arrives in
/// pieces, so a binary blob without newlines cannot grow memory without bound.
struct LineSplitter {
    let maxLineBytes: Int
    private var pending: [UInt8] = []

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    mutating func append(_ bytes: ArraySlice<UInt8>, emit: (String) -> Void) {
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            pending.append(contentsOf: bytes[start..<newline])
            emitPending(emit)
            start = newline + 1
        }
        pending.append(contentsOf: bytes[start...])
        while pending.count >= maxLineBytes {
            emit(Self.text(pending[0..<maxLineBytes]))
            pending.removeFirst(maxLineBytes)
        }
    }

    mutating func flush(emit: (String) -> Void) {
        if !pending.isEmpty { emitPending(emit) }
    }

    private mutating func emitPending(_ emit: (String) -> Void) {
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        emit(Self.text(pending[...]))
        pending.removeAll(keepingCapacity: true)
    }

    /// Invalid UTF-8 becomes U+FFFD, so binary output cannot break a JSON stream.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
