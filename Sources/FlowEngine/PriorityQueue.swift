/// Ready tasks of one queue: highest priority first, then earliest in the file.
struct PriorityQueue: Sendable {
    /// Orders by priority descending, then file order ascending.
    struct Key: Comparable, Sendable {
        var priority: Int
        var order: Int
        static func < (lhs: Self, rhs: Self) -> Bool {
            lhs.priority != rhs.priority ? lhs.priority > rhs.priority : lhs.order < rhs.order
        }
    }

    private var heap: [(key: Key, task: Int)] = []

    var isEmpty: Bool { heap.isEmpty }

    func peek() -> Key? { heap.first?.key }

    mutating func push(_ task: Int, priority: Int, order: Int) {
        heap.append((Key(priority: priority, order: order), task))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].key < heap[parent].key else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Int? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(from: 0)
        }
        return top.task
    }

    /// Removes and returns the tasks that match, keeping the rest in order.
    mutating func removeAll(where shouldRemove: (Int) -> Bool) -> [Int] {
        let removed = heap.filter { shouldRemove($0.task) }.map(\.task)
        guard !removed.isEmpty else { return [] }
        heap.removeAll { shouldRemove($0.task) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
        return removed
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var best = left
            if left + 1 < heap.count, heap[left + 1].key < heap[left].key { best = left + 1 }
            guard heap[best].key < heap[parent].key else { return }
            heap.swapAt(best, parent)
            parent = best
        }
    }
}
