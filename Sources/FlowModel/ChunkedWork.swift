import Dispatch
import Glibc

/// Runs a loop over many items on every core, a chunk of items at a time: the per-task steps
/// of a large file (decoding, resolving, printing the plan). A small loop runs on the calling
/// thread, as a plain loop would.
///
/// Chunks are consecutive ranges and their results come back in order, so what the chunks
/// report (diagnostics, text) reads as if one thread had gone through the items.
package enum ChunkedWork {
    /// Below this many items per chunk a second thread costs more than it saves.
    package static let minimumChunk = 4096

    /// `body` over consecutive chunks of `0..<count`, their results in order.
    ///
    /// Several chunks per core let a core that finishes early take another, so one busy core
    /// does not hold up the rest.
    package static func map<Result: Sendable>(
        _ count: Int, minimumChunk: Int = minimumChunk, _ body: @Sendable (Range<Int>) -> Result
    ) -> [Result] {
        let chunkCount = min(4 * cores, count / max(1, minimumChunk))
        guard chunkCount > 1 else { return [body(0..<count)] }
        let results = Slots<Result>(count: chunkCount)
        defer { results.deallocate() }
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            let range = (count * chunk / chunkCount)..<(count * (chunk + 1) / chunkCount)
            results.set(chunk, body(range))
        }
        return results.take()
    }

    /// Like `map`, with items that `body` adds through `add`, at most one per index of its
    /// range: the items of every chunk in order, and what each chunk returned.
    ///
    /// The items are moved, not copied, into the one array: a copy retains each of an item's
    /// strings and lists, which would take back much of what the other cores save.
    package static func gather<Item: Sendable, Report: Sendable>(
        _ count: Int, minimumChunk: Int = minimumChunk,
        _ body: @Sendable (Range<Int>, _ add: (consuming Item) -> Void) -> Report
    ) -> (items: [Item], reports: [Report]) {
        let chunks = map(count, minimumChunk: minimumChunk) { range in
            let items = UnsafeMutablePointer<Item>.allocate(capacity: range.count)
            var added = 0
            let report = body(range) { item in
                precondition(added < range.count, "ChunkedWork.gather: more than one item for an index")
                (items + added).initialize(to: item)
                added += 1
            }
            return (items: Moved(pointer: items, count: added), report: report)
        }
        let total = chunks.reduce(0) { $0 + $1.items.count }
        let items = [Item](unsafeUninitializedCapacity: total) { buffer, initialized in
            for chunk in chunks {
                (buffer.baseAddress! + initialized).moveInitialize(from: chunk.items.pointer, count: chunk.items.count)
                initialized += chunk.items.count
                chunk.items.pointer.deallocate()
            }
        }
        return (items, chunks.map(\.report))
    }

    /// A chunk's items, handed from the thread that made them to the one that moves them.
    private struct Moved<Item: Sendable>: @unchecked Sendable {
        var pointer: UnsafeMutablePointer<Item>
        var count: Int
    }

    /// Cores this process may use; counted once.
    package static let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// One result per chunk, each written by the one thread that runs that chunk.
    private final class Slots<Result: Sendable>: @unchecked Sendable {
        private let storage: UnsafeMutableBufferPointer<Result?>

        init(count: Int) {
            storage = .allocate(capacity: count)
            storage.initialize(repeating: nil)
        }

        func set(_ index: Int, _ result: Result) { storage[index] = result }

        /// Every result, moved out; call once, after every chunk has run.
        func take() -> [Result] { storage.indices.map { storage[$0].take()! } }

        func deallocate() {
            _ = storage.deinitialize()
            storage.deallocate()
        }
    }
}
