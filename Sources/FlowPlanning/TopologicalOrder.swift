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
