import Glibc

/// A shared transfer's whole bytes, held open for reading, so that each task that waited for
/// it copies them to its own `to` whatever became of the file the transfer wrote (renamed onto
/// the leading task's `to`, or removed when that `to` could not take it).
final class FinishedFile: Sendable {
    let descriptor: Int32
    let digests: BodyDigests

    /// Nil when `path` cannot be opened (out of descriptors): the waiting tasks then transfer.
    init?(path: String, digests: BodyDigests) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.digests = digests
    }

    deinit { close(descriptor) }
}
