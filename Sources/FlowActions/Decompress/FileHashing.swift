import Foundation

/// Hashes the files an extraction writes on a thread of its own, so that hashing (XXH3-128) does not slow
/// the thread that decodes and writes them (a zip's entries are inflated on that thread): each
/// data block is copied into a ring of buffers, the hashing thread takes them in order, and at
/// each file's end notes its digest (`WrittenFiles`). Memory is the ring's; the writer waits
/// for a free buffer when the hashing falls behind.
///
/// The thread is woken once `batch` items wait (or at the end) and takes all of them at once;
/// the writer is woken only when it waits; wake-ups are sent after the lock is let go (woken
/// under it, the other thread blocked on the lock at once: a third of a tar.gz extraction's
/// futex calls).
///
/// - Warning: `@unchecked Sendable`: the queue is guarded by `condition`; `written` is used by
///   the hashing thread alone until `finish()` returns.
final class FileHashing: @unchecked Sendable {
    static let bufferSize = 256 * 1024
    static let bufferCount = 8
    /// File ends waiting at most: many empty files must not queue without bound either.
    static let queueLimit = 1024
    /// Items queued before the thread is woken. The writer waits only on a full ring (8
    /// buffers) or queue, more than this: the thread is then awake.
    static let batch = 4

    private enum Item {
        case bytes(buffer: Int, count: Int, offset: Int64)
        /// The file's status once it was finished, nil if it is not to be noted.
        case end(stat?)
    }

    private let written: WrittenFiles
    private let buffers: [UnsafeMutableRawPointer]
    private let condition = NSCondition()
    /// Guarded by `condition`, as everything below.
    private var queue: [Item] = []
    private var freeBuffers: [Int]
    /// The writer waits for a free buffer or room in the queue.
    private var writerWaits = false
    private var closed = false
    private var ended = false

    init(written: WrittenFiles) {
        self.written = written
        buffers = (0..<Self.bufferCount).map { _ in UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 64) }
        freeBuffers = Array(0..<Self.bufferCount)
        WorkerThread.start(named: "flowrun.hash", condition: condition, work: { [self] in hashAll() }, ended: { [self] in ended = true })
    }

    deinit {
        finish()
        for buffer in buffers { buffer.deallocate() }
    }

    /// A block of the file being written, at `offset` in it.
    func add(_ block: UnsafeRawPointer?, count: Int, at offset: Int64) {
        guard let block else { return }
        var done = 0
        while done < count {
            let part = min(Self.bufferSize, count - done)
            let index = condition.withLock {
                while freeBuffers.isEmpty || queue.count >= Self.queueLimit {
                    writerWaits = true
                    condition.wait()
                }
                return freeBuffers.removeLast()
            }
            buffers[index].copyMemory(from: block + done, byteCount: part)
            push(.bytes(buffer: index, count: part, offset: offset + Int64(done)))
            done += part
        }
    }

    /// The file's end: `status` (taken after libarchive finished it) is where its digest is
    /// noted; nil drops what was hashed.
    func end(_ status: stat?) {
        condition.withLock {
            while queue.count >= Self.queueLimit {
                writerWaits = true
                condition.wait()
            }
        }
        push(.end(status))
    }

    /// Waits until every file was hashed and noted; the thread then ends.
    func finish() {
        condition.withLock {
            closed = true
            condition.broadcast()
            while !ended { condition.wait() }
        }
    }

    private func push(_ item: Item) {
        let wake = condition.withLock {
            queue.append(item)
            return queue.count >= Self.batch
        }
        if wake { condition.broadcast() }
    }

    /// Wakes the writer if it waits: a buffer was freed, or the queue emptied.
    private func wakeWriter() {
        let wake = condition.withLock {
            defer { writerWaits = false }
            return writerWaits
        }
        if wake { condition.broadcast() }
    }

    private func hashAll() {
        var digest = WrittenDigest()
        var taken: [Item] = []
        while true {
            condition.withLock {
                while queue.count < Self.batch && !closed { condition.wait() }
                swap(&taken, &queue)
            }
            if taken.isEmpty { return }  // closed, and every file hashed
            for item in taken {
                switch item {
                case .bytes(let index, let count, let offset):
                    digest.add(buffers[index], count: count, at: offset)
                    condition.withLock { freeBuffers.append(index) }
                    wakeWriter()
                case .end(let status):
                    if let status { written.note(digest, for: status) }
                    digest = WrittenDigest()
                }
            }
            taken.removeAll(keepingCapacity: true)
            wakeWriter()
        }
    }
}
