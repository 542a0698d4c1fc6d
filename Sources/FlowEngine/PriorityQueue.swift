import FlowPlanning

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

    private struct Entry: Comparable, Sendable {
        var key: Key
        var task: Int
        static func < (lhs: Self, rhs: Self) -> Bool { lhs.key < rhs.key }
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key }
    }

    private var heap = MinHeap<Entry>()

    var isEmpty: Bool { heap.isEmpty }

    func peek() -> Key? { heap.first?.key }

    mutating func push(_ task: Int, priority: Int, order: Int) {
        heap.push(Entry(key: Key(priority: priority, order: order), task: task))
    }

    mutating func pop() -> Int? { heap.pop()?.task }

    /// Removes and returns the tasks that match; the rest keep their order.
    mutating func removeAll(where shouldRemove: (Int) -> Bool) -> [Int] {
        heap.removeAll { shouldRemove($0.task) }.map(\.task)
    }
}
