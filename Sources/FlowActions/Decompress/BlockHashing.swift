import Crypto
import Foundation

/// SHA-256 of a stream of blocks, on a thread of its own: the thread that reads the archive
/// (and decodes or inflates it, the slowest part of an extraction) hands each block over and
/// goes on, instead of hashing it itself. Blocks are hashed in the order given, from the
/// caller's memory, without a copy: the caller keeps a block unchanged until `wait(for:)` its
/// ticket returns.
///
/// - Warning: `@unchecked Sendable`: the queue is guarded by `condition`; `hasher` is the
///   thread's from `init` until `finish()` returns.
final class BlockHashing: @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`, as everything below.
    private var queue: [(block: UnsafeRawPointer, count: Int)] = []
    private var head = 0
    /// Tickets given out: the number of blocks handed over.
    private var given = 0
    /// Blocks hashed.
    private var hashed = 0
    private var closed = false
    private var ended = false
    private var hasher = SHA256()

    init() {
        WorkerThread.start(
            named: "flowrun.hash-archive", condition: condition, work: { [self] in hashAll() }, ended: { [self] in ended = true })
    }

    deinit { _ = finish() }

    /// Hands a block over; its ticket, for `wait(for:)`.
    func add(_ block: UnsafeRawPointer, count: Int) -> Int {
        condition.withLock {
            queue.append((block, count))
            given += 1
            condition.broadcast()
            return given
        }
    }

    /// Returns once the block of `ticket` (and every one before it) was hashed; 0 at once.
    func wait(for ticket: Int) {
        condition.withLock {
            while hashed < ticket && !ended { condition.wait() }
        }
    }

    /// Waits until every block was hashed, ends the thread and gives the hash state back.
    func finish() -> SHA256 {
        condition.withLock {
            closed = true
            condition.broadcast()
            while !ended { condition.wait() }
            return hasher
        }
    }

    private func hashAll() {
        var state = condition.withLock { hasher }
        while true {
            let next: (block: UnsafeRawPointer, count: Int)? = condition.withLock {
                while head == queue.count && !closed { condition.wait() }
                guard head < queue.count else { return nil }
                // Drop what was taken now and then, so that the array does not grow.
                if head >= 64 {
                    queue.removeFirst(head)
                    head = 0
                }
                return queue[head]
            }
            guard let next else { break }
            state.update(bufferPointer: UnsafeRawBufferPointer(start: next.block, count: next.count))
            condition.withLock {
                head += 1
                hashed += 1
                condition.broadcast()
            }
        }
        condition.withLock { hasher = state }
    }
}
