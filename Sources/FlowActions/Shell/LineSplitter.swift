/// Cuts a byte stream into lines: `\n` ends a line (a `\r` before it is dropped), a last line
/// without a newline still arrives at `flush`, and a line longer than `maxLineBytes` arrives in
/// pieces of at most that many bytes, so a binary blob without newlines cannot grow memory
/// without bound. A piece ends between UTF-8 characters, so valid text stays valid in pieces.
struct LineSplitter {
    let maxLineBytes: Int
    private var pending: [UInt8] = []

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// The lines `bytes` end (as `append`), or at the end of the stream (nil) the last one
    /// without a newline (as `flush`). A read that ends no line allocates nothing.
    mutating func lines(of bytes: ArraySlice<UInt8>?) -> [String] {
        var lines: [String] = []
        if let bytes {
            append(bytes) { lines.append($0) }
        } else {
            flush { lines.append($0) }
        }
        return lines
    }

    mutating func append(_ bytes: ArraySlice<UInt8>, emit: (String) -> Void) {
        var start = bytes.startIndex
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            pending.append(contentsOf: bytes[start..<newline])
            if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
            emitPieces(emit)
            emitPending(emit)
            start = newline + 1
        }
        pending.append(contentsOf: bytes[start...])
        emitPieces(emit)
    }

    mutating func flush(emit: (String) -> Void) {
        if !pending.isEmpty {
            if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
            emitPending(emit)
        }
    }

    /// Sends the front of a line longer than the limit. A line of exactly the limit waits (with a
    /// `\r` after it): its newline may come in the next read, and it is then one line, not it
    /// and an empty one.
    private mutating func emitPieces(_ emit: (String) -> Void) {
        while pending.count > maxLineBytes, pending.count > maxLineBytes + 1 || pending.last != UInt8(ascii: "\r") {
            let cut = pieceEnd()
            emit(Self.text(pending[0..<cut]))
            pending.removeFirst(cut)
        }
    }

    /// Where the next piece ends: at the limit, or before the character the limit falls in
    /// (UTF-8 continuation bytes are 10xxxxxx; a character has at most 3 of them). Bytes that
    /// are no character are cut at the limit.
    private func pieceEnd() -> Int {
        var start = maxLineBytes
        while start > max(0, maxLineBytes - 3), pending[start] & 0xC0 == 0x80 { start -= 1 }
        return start > 0 && pending[start] & 0xC0 != 0x80 ? start : maxLineBytes
    }

    private mutating func emitPending(_ emit: (String) -> Void) {
        emit(Self.text(pending[...]))
        pending.removeAll(keepingCapacity: true)
    }

    /// Invalid UTF-8 becomes U+FFFD, so binary output cannot break a JSON stream.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
