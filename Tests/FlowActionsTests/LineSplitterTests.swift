import Testing

@testable import FlowActions

/// `LineSplitter` on bytes given in chunks, as reads from a pipe come.
@Suite struct LineSplitterTests {
    /// The lines `chunks` make with pieces of at most `max` bytes.
    static func lines(_ chunks: [[UInt8]], max: Int) -> [String] {
        lines(chunks.map { $0[...] }, max: max)
    }

    /// The lines `bytes` make when read `size` bytes at a time.
    static func lines(_ bytes: [UInt8], readsOf size: Int, max: Int) -> [String] {
        lines(stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min($0 + size, bytes.count)] }, max: max)
    }

    static func lines(_ chunks: [ArraySlice<UInt8>], max: Int) -> [String] {
        var splitter = LineSplitter(maxLineBytes: max)
        var lines: [String] = []
        for chunk in chunks { splitter.append(chunk) { lines.append($0) } }
        splitter.flush { lines.append($0) }
        return lines
    }

    /// A long line of valid UTF-8 is cut between characters, never inside one: each piece is
    /// valid text and the pieces join to the line (a cut inside `€` made three U+FFFD).
    @Test func aLongLineIsCutBetweenCharacters() {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        let line = Array(repeating: euro, count: 7).flatMap { $0 }
        let pieces = Self.lines(line + [UInt8(ascii: "\n")], readsOf: 5, max: 8)
        #expect(!pieces.joined().contains("\u{FFFD}"))
        #expect(pieces.joined() == String(repeating: "€", count: 7))
        #expect(pieces.allSatisfy { $0.utf8.count <= 8 })
    }

    /// A character split across two reads of a long line still arrives whole.
    @Test func aCharacterSplitAcrossReadsOfALongLineArrivesWhole() {
        let pieces = Self.lines([[0x61, 0x61, 0x61, 0xE2, 0x82], [0xAC, 0x62, 0x62, 0x62, 0x62, 0x62]], max: 4)
        #expect(pieces.joined() == "aaa€bbbbb")
        #expect(!pieces.joined().contains("\u{FFFD}"))
    }

    /// A line of exactly the limit followed by its newline in the next read is one line, not
    /// the line and an empty one.
    @Test func aLineOfExactlyTheLimitIsOneLine() {
        let pieces = Self.lines([Array("abcd".utf8), Array("\nef\n".utf8)], max: 4)
        #expect(pieces == ["abcd", "ef"])
        #expect(Self.lines([Array("abcd\r".utf8), Array("\nef\n".utf8)], max: 4) == ["abcd", "ef"])
        #expect(Self.lines([Array("abcd\r".utf8), Array("x\n".utf8)], max: 4) == ["abcd", "\rx"])
    }

    /// A long line read whole in one read still arrives in pieces of at most the limit, its
    /// `\r\n` dropped as a short line's is.
    @Test func aLongLineInOneReadArrivesInPieces() {
        let pieces = Self.lines([Array("abcdefghij\r\nk\n".utf8)], max: 4)
        #expect(pieces == ["abcd", "efgh", "ij", "k"])
    }

    /// Bytes that are not UTF-8 still become U+FFFD, and a run of them with no character
    /// boundary in sight is still cut at the limit.
    @Test func invalidBytesStillBecomeReplacementCharacters() {
        let pieces = Self.lines([UInt8](repeating: 0x80, count: 10) + [UInt8(ascii: "\n")], readsOf: 1, max: 4)
        #expect(pieces.joined() == String(repeating: "\u{FFFD}", count: 10))
        #expect(pieces.count == 3)
    }
}
