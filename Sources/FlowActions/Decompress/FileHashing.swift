import Foundation

/// Hashes the files an extraction writes on a thread of its own, so that SHA-256 does not slow
/// the thread that decodes and writes them (a zip's entries are inflated on that thread): each
/// data block is copied into a ring of buffers, the hashing thread takes them in order, and at
/// each file's end notes its digest (`WrittenFiles`). Memory is the ring's; the writer waits
/// for a free buffer when the hashing falls behind.
///
/// - Warning: `@unchecked Sendable`: the queue is guarded by `condition`; `written` is used by
///   the hashing thread alone until `finish()` returns.
final class FileHashing: @unchecked Sendable {
    static let bufferSize = 256 * 1024
    static let bufferCount = 8
    /// File ends waiting at most: many empty files must not queue without bound either.
    static let queueLimit = 1024

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
    private var head = 0
    private var freeBuffers: [Int]
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
                while freeBuffers.isEmpty || queue.count - head >= Self.queueLimit { condition.wait() }
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
            while queue.count - head >= Self.queueLimit { condition.wait() }
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
        condition.withLock {
            queue.append(item)
            condition.broadcast()
        }
    }

    private func hashAll() {
        var digest = WrittenDigest()
        while true {
            let item: Item? = condition.withLock {
                while head == queue.count && !closed { condition.wait() }
                guard head < queue.count else { return nil }
                let item = queue[head]
                head += 1
                condition.broadcast()
                // Drop what was taken now and then, so the array does not grow with the files.
                if head >= 256 && head * 2 >= queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                return item
            }
            guard let item else { return }
            switch item {
            case .bytes(let index, let count, let offset):
                digest.add(buffers[index], count: count, at: offset)
                condition.withLock {
                    freeBuffers.append(index)
                    condition.broadcast()
                }
            case .end(let status):
                if let status { written.note(digest, for: status) }
                digest = WrittenDigest()
            }
        }
    }
}
