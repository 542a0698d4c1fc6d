import FlowFiles

/// The XXH3-128 (`XXH128Hasher`) of one file's bytes, taken from the data blocks as they are written. Blocks must
/// follow each other: a sparse file's hole (a block further on) or a block written twice ends
/// it, and the file is hashed by the bookkeeping as before.
struct WrittenDigest {
    private let hasher = XXH128Hasher()
    private var offset: Int64 = 0
    private var followed = true

    mutating func add(_ block: UnsafeRawPointer?, count: Int, at offset: Int64) {
        guard followed, count > 0 else { return }
        guard offset == self.offset, let block else {
            followed = false
            return
        }
        hasher.update(UnsafeRawBufferPointer(start: block, count: count))
        self.offset += Int64(count)
    }

    /// The digest in lowercase hex, if the file holds exactly the bytes hashed (its `size`).
    func digest(ofFileSized size: Int64) -> String? {
        guard followed, size == offset else { return nil }
        return hasher.finalize()
    }
}
