import FlowFiles
import Testing

/// The state's file digest is XXH3-128 as `xxh128sum` prints it, whether the bytes come at once
/// or in pieces of any size.
@Suite struct XXH128HasherTests {
    @Test func theDigestIsWhatXXH128SumPrints() {
        #expect(XXH128Hasher.hash("") == "99aa06d3014798d86001c324468d497f")
        #expect(XXH128Hasher.hash("The quick brown fox jumps over the lazy dog") == "ddd650205ca3e7fa24a1cc2e3a8a7651")
    }

    @Test(arguments: [1, 7, 64, 4096])
    func piecesOfAnySizeGiveTheSameDigest(piece: Int) {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 7) }
        let hasher = XXH128Hasher()
        var start = 0
        while start < bytes.count {
            let end = min(start + piece, bytes.count)
            bytes[start..<end].withUnsafeBytes { hasher.update($0) }
            start = end
        }
        #expect(hasher.finalize() == bytes.withUnsafeBytes { XXH128Hasher.hash($0) })
        #expect(hasher.finalize() != XXH128Hasher.hash(""))
    }
}
