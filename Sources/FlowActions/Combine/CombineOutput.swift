import FlowFiles
import Glibc

/// A combine task's output: an `AtomicFile` whose bytes are hashed as they are written, so that
/// once it is in place its XXH3-128 is noted for the up-to-date bookkeeping (`StreamedDigests`)
/// and the file is not read back to hash it.
///
/// Not thread-safe: one writer uses it at a time.
final class CombineOutput {
    private let file: AtomicFile
    private let digests: StreamedDigests
    private let hasher = XXH128Hasher()
    private var hashed: Int64 = 0

    init(_ destination: String, digests: StreamedDigests) throws(ActionFailure) {
        file = try AtomicFile.combineOutput(destination)
        self.digests = digests
    }

    var destination: String { file.destination }

    /// The temporary file's descriptor, for C code that writes to it and reports each write
    /// through `wrote` (`hash(_:)`).
    var descriptor: Int32 { file.descriptor }

    func write(_ bytes: UnsafeRawBufferPointer) throws(ActionFailure) {
        try file.append(bytes)
        hash(bytes)
    }

    /// `write(_:)` for libarchive's write callback: the errno of a failure, 0 on success.
    func writeReturningCode(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        do {
            try file.write(bytes)
        } catch {
            return error.code
        }
        hash(bytes)
        return 0
    }

    /// Bytes that were written to `descriptor` by other code.
    func hash(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bytes)
        hashed += Int64(bytes.count)
    }

    /// `hash(_:)` for C code, given `opaque` as its context.
    static let wrote: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Void = { context, bytes, count in
        Unmanaged<CombineOutput>.fromOpaque(context!).takeUnretainedValue().hash(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Puts the file in place (`AtomicFile.commit`) and notes its digest, if the file there is
    /// the one written (the same inode, size and mtime: the rename moved its ctime alone) and
    /// holds every byte hashed.
    func commit() throws(ActionFailure) {
        let before = FileStatus.of(descriptor: file.descriptor)
        try file.commitOutput()
        guard let before, before.size == hashed, let after = FileStatus.of(path: file.destination),
            after.isRenamed(from: before)
        else { return }
        digests.note(hasher.finalize(), for: after)
    }

    func discard() { file.discard() }
}
