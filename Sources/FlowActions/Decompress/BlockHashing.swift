import FlowFiles
import Foundation

/// The XXH3-128 (`XXH128Hasher`) of a stream of blocks, on a thread of its own: the thread that reads the archive
/// (and decodes or inflates it, the slowest part of an extraction) hands each block over and
/// goes on, instead of hashing it itself. Blocks are hashed in the order given, from the
/// caller's memory, without a copy: the caller keeps a block unchanged until `wait(for:)` its
/// ticket returns.
///
/// The thread is woken once `batch` blocks wait (or someone waits for a ticket, or at the end)
/// and takes all of them at once, and wake-ups are sent after the lock is let go: woken for
/// each 64 KiB block under the lock, the two threads made some 7,000 futex calls (half of
/// them on the lock) for a 126 MB archive.
///
/// - Warning: `@unchecked Sendable`: the queue is guarded by `condition`; `hasher` is the
///   thread's from `init` until `finish()` returns.
final class BlockHashing: @unchecked Sendable {
    /// Blocks queued before the thread is woken.
    static let batch = 4

    private let condition = NSCondition()
    /// Guarded by `condition`, as everything below.
    private var queue: [(block: UnsafeRawPointer, count: Int)] = []
    /// Tickets given out: the number of blocks handed over.
    private var given = 0
    /// Blocks hashed.
    private var hashed = 0
    /// Callers in `wait(for:)`: the thread then hashes what is queued, however little.
    private var waiting = 0
    private var closed = false
    private var ended = false
    private var hasher = XXH128Hasher()

    init() {
        WorkerThread.start(
            named: "flowrun.hash-archive", condition: condition, work: { [self] in hashAll() }, ended: { [self] in ended = true })
    }

    deinit { _ = finish() }

    /// Hands a block over; its ticket, for `wait(for:)`.
    func add(_ block: UnsafeRawPointer, count: Int) -> Int {
        let (ticket, wake) = condition.withLock {
            queue.append((block, count))
            given += 1
            return (given, queue.count >= Self.batch)
        }
        if wake { condition.broadcast() }
        return ticket
    }

    /// Returns once the block of `ticket` (and every one before it) was hashed; 0 at once.
    func wait(for ticket: Int) {
        let waits = condition.withLock {
            guard hashed < ticket && !ended else { return false }
            waiting += 1
            return true
        }
        guard waits else { return }
        condition.broadcast()
        condition.withLock {
            while hashed < ticket && !ended { condition.wait() }
            waiting -= 1
        }
    }

    /// Waits until every block was hashed, ends the thread and gives the hash state back.
    func finish() -> XXH128Hasher {
        condition.withLock {
            closed = true
            condition.broadcast()
            while !ended { condition.wait() }
            return hasher
        }
    }

    private func hashAll() {
        let state = condition.withLock { hasher }
        var taken: [(block: UnsafeRawPointer, count: Int)] = []
        while true {
            condition.withLock {
                while queue.count < (waiting > 0 ? 1 : Self.batch) && !closed { condition.wait() }
                swap(&taken, &queue)
            }
            if taken.isEmpty { break }  // closed, and every block hashed
            for next in taken {
                state.update(UnsafeRawBufferPointer(start: next.block, count: next.count))
            }
            let wake = condition.withLock {
                hashed += taken.count
                return waiting > 0
            }
            if wake { condition.broadcast() }
            taken.removeAll(keepingCapacity: true)
        }
        condition.withLock { hasher = state }
    }
}
