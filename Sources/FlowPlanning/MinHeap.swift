/// A binary min-heap of integers: the topological sort's ready set (file positions) and the
/// scheduler's ready queues (priority and file order packed into one `Int`) both take their
/// smallest element from one.
///
/// Not generic: the scheduler pushes and pops once per task, and a generic heap is not
/// specialized across the module boundary, so every comparison would go through witness tables.
package struct MinHeap: Sendable {
    package typealias Element = Int
    @usableFromInline var items: [Element] = []

    @inlinable package init() {}

    @inlinable package var isEmpty: Bool { items.isEmpty }

    /// The smallest element, left in place.
    @inlinable package var first: Element? { items.first }

    @inlinable package mutating func push(_ element: Element) {
        items.append(element)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    @inlinable package mutating func pop() -> Element? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            siftDown(from: 0)
        }
        return top
    }

    /// Removes and returns the elements that match; the rest stay a heap.
    @inlinable package mutating func removeAll(where shouldRemove: (Element) -> Bool) -> [Element] {
        let removed = items.filter(shouldRemove)
        guard !removed.isEmpty else { return [] }
        items.removeAll(where: shouldRemove)
        for index in stride(from: items.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
        return removed
    }

    @inlinable mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < items.count else { return }
            var smallest = left
            if left + 1 < items.count, items[left + 1] < items[left] { smallest = left + 1 }
            guard items[smallest] < items[parent] else { return }
            items.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
