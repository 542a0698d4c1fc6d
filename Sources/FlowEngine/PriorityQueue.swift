import FlowPlanning

/// Ready tasks of one queue: highest priority first, then earliest in the file.
///
/// Each entry is one `Int`, priority and file order in the high bits and the task in the low
/// ones, so that the heap compares plain integers (`MinHeap` holds `Int`s).
struct PriorityQueue: Sendable {
    /// Orders by priority descending, then file order ascending; smaller is more urgent.
    struct Key: Comparable, Sendable {
        fileprivate var packed: Int

        /// `priority` is a rank (larger is more urgent), `order` the task's place in the file.
        init(priority: Int, order: Int) {
            precondition((0..<PriorityQueue.rankLimit).contains(priority) && (0...PriorityQueue.indexMask).contains(order))
            packed = (PriorityQueue.rankLimit - 1 - priority) << PriorityQueue.indexBits | order
        }

        fileprivate init(packed: Int) { self.packed = packed }

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.packed < rhs.packed }
    }

    /// 27 bits each for file order and task index: 134 million tasks, far beyond any file.
    private static let indexBits = 27
    private static let indexMask = (1 << indexBits) - 1
    /// Priority ranks are small (0 to 4); this many bits leave room above them.
    private static let rankLimit = 1 << 8

    private var heap = MinHeap()

    var isEmpty: Bool { heap.isEmpty }

    /// The most urgent task, without removing it.
    var firstTask: Int? { heap.first.map { $0 & Self.indexMask } }

    mutating func push(_ task: Int, priority: Int, order: Int) {
        precondition((0...Self.indexMask).contains(task))
        heap.push(Key(priority: priority, order: order).packed << Self.indexBits | task)
    }

    mutating func pop() -> Int? { heap.pop().map { $0 & Self.indexMask } }

    /// Removes and returns the tasks that match; the rest keep their order.
    mutating func removeAll(where shouldRemove: (Int) -> Bool) -> [Int] {
        heap.removeAll { shouldRemove($0 & Self.indexMask) }.map { $0 & Self.indexMask }
    }
}
