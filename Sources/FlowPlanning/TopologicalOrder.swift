/// Kahn's algorithm over a min-heap of file positions: of all valid orders, the one closest to
/// file order. Linear apart from the heap's log factor.
enum TopologicalOrder {
    /// Every task after everything it needs; a task on or behind a cycle is never placed, so
    /// the order is shorter than the graph exactly when the graph has a cycle.
    static func sorted(_ graph: TaskGraph) -> [Int] {
        // When every task needs only tasks above it, file order is valid, and being the
        // smallest of all orders it is the one the heap would produce: no heap needed.
        if graph.needs.indices.allSatisfy({ task in graph.needs[task].allSatisfy { $0 < task } }) {
            return Array(graph.needs.indices)
        }
        var waiting = graph.needs.map(\.count)
        let dependents = graph.dependents()
        var ready = MinHeap()
        for task in 0..<graph.count where waiting[task] == 0 { ready.push(task) }
        var order: [Int] = []
        order.reserveCapacity(graph.count)
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
