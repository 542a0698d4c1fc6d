import Crypto
import FlowFiles

/// The digests of a download's bytes, computed in one pass as they are written (`BodyHasher`):
/// their XXH3-128, which the up-to-date state keeps (`XXH128Hasher`), and their SHA-256 only
/// for a task that gives `sha256:`, which it is checked against and which names its cache blob.
package struct BodyDigests: Sendable, Equatable {
    /// Lowercase hex XXH3-128.
    package var content: String
    /// Lowercase hex SHA-256; nil when the task gives no `sha256:`.
    package var sha256: String?
}

/// Hashes a download's bytes for `BodyDigests`, each block into both digests at once while it
/// is in cache, or (`updateSHA256`, with the XXH3-128 fed to `content` elsewhere) each digest on
/// a thread of its own. Copies share the XXH3 state (a class): make a new one to start over.
struct BodyHasher {
    /// The XXH3-128's state, which a file whose SHA-256 takes the hashing queue feeds from the
    /// network thread instead (`PartialFile.hashContent`).
    let content: XXH128Hasher
    private var sha256: SHA256?

    init(withSHA256: Bool) {
        content = XXH128Hasher()
        sha256 = withSHA256 ? SHA256() : nil
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        content.update(bytes)
        sha256?.update(bufferPointer: bytes)
    }

    /// The SHA-256 only: the same bytes go to `content` on another thread, in the same order.
    mutating func updateSHA256(_ bytes: UnsafeRawBufferPointer) {
        sha256?.update(bufferPointer: bytes)
    }

    /// The digests of the bytes so far; more may still be added.
    func finalize() -> BodyDigests {
        BodyDigests(content: content.finalize(), sha256: sha256?.finalize().hex)
    }
}
