import CXXHash

/// XXH3-128 (libxxhash's `XXH128`, what `xxh128sum` prints), fed in pieces: the digest the
/// up-to-date state keeps of a file's contents, and that actions compute of the bytes they
/// write. It only has to see a change, not resist someone who wants to hide one (they could
/// write the state folder too), and costs about a tenth of SHA-256's CPU; SHA-256 stays where
/// a file must be what a `sha256:` says.
///
/// A class: libxxhash's state is allocated by the library (aligned as it needs). Not
/// thread-safe; a copy of the reference hashes into the same state.
package final class XXH128Hasher: @unchecked Sendable {
    /// The digest's size in bytes.
    package static let size = 16
    private let state: OpaquePointer

    package init() {
        // XXH3_createState fails only when malloc does.
        guard let state = XXH3_createState() else { fatalError("cannot allocate the XXH3 state") }
        self.state = state
        XXH3_128bits_reset(state)
    }

    deinit { XXH3_freeState(state) }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        XXH3_128bits_update(state, base, bytes.count)
    }

    /// The digest of the bytes so far, lowercase hex in xxhsum's (big-endian) order; more
    /// bytes may still be added.
    package func finalize() -> String {
        Self.hex(XXH3_128bits_digest(state))
    }

    /// The digest of `bytes` at once.
    package static func hash(_ bytes: UnsafeRawBufferPointer) -> String {
        hex(XXH3_128bits(bytes.baseAddress, bytes.count))
    }

    package static func hash(_ text: String) -> String {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    private static func hex(_ digest: XXH128_hash_t) -> String {
        var canonical = XXH128_canonical_t()
        XXH128_canonicalFromHash(&canonical, digest)
        return withUnsafeBytes(of: &canonical.digest) { raw in
            String(unsafeUninitializedCapacity: 2 * size) { text in
                for (index, byte) in raw.enumerated() {
                    text[2 * index] = digit(byte >> 4)
                    text[2 * index + 1] = digit(byte & 15)
                }
                return 2 * size
            }
        }
    }

    private static func digit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x57 + value }
}
