/// Kahn's algorithm over a min-heap of file positions: of all valid orders, the one closest to
/// file order. Linear apart from the heap's log factor.
enum TopologicalOrder {
    /// The selected tasks of an acyclic graph, each after everything it needs.
    static func sorted(_ selected: [Bool], in graph: TaskGraph) -> [Int] {
        var waiting = [Int](repeating: 0, count: graph.count)
        var dependents = [[Int]](repeating: [], count: graph.count)
        for task in 0..<graph.count where selected[task] {
            waiting[task] = graph.needs[task].count
            for need in graph.needs[task] { dependents[need].append(task) }
        }
        var ready = MinHeap()
        for task in 0..<graph.count where selected[task] && waiting[task] == 0 { ready.push(task) }
        var order: [Int] = []
        while let task = ready.pop() {
            order.append(task)
            for dependent in dependents[task] {
                waiting[dependent] -= 1
                if waiting[dependent] == 0 { ready.push(dependent) }
            }
        }
        return order
    }
}

/// A binary min-heap of integers.
struct MinHeap {
    private var items: [Int] = []

    var isEmpty: Bool { items.isEmpty }

    mutating func push(_ value: Int) {
        items.append(value)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Int? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < items.count else { break }
                var smallest = left
                if left + 1 < items.count, items[left + 1] < items[left] { smallest = left + 1 }
                guard items[smallest] < items[parent] else { break }
                items.swapAt(smallest, parent)
                parent = smallest
            }
        }
        return top
    }
}
