import FlowModel

/// The `TASK...` selection: the named tasks plus everything they need, transitively.
package enum Selection {
    /// A mask over the graph; every task when `targets` is empty. With `exactly` (`run --only`),
    /// the targets alone, without what they need. `alsoNamed`: names that are no task's id but
    /// may be meant (matrix tasks' names), for a did-you-mean.
    package static func tasks(_ targets: [TaskID], in graph: TaskGraph, exactly: Bool = false, alsoNamed: [TaskID] = []) throws -> [Bool] {
        guard !targets.isEmpty else { return [Bool](repeating: true, count: graph.count) }
        var selected = [Bool](repeating: false, count: graph.count)
        var pending: [Int] = []
        for target in targets {
            guard let task = graph.index[target] else {
                throw PlanningError.unknownTarget(target, suggestion: Spelling.suggestion(for: target, among: alsoNamed + graph.ids))
            }
            pending.append(task)
        }
        if exactly {
            for task in pending { selected[task] = true }
            return selected
        }
        while let task = pending.popLast() {
            guard !selected[task] else { continue }
            selected[task] = true
            pending.append(contentsOf: graph.needs[task])
        }
        return selected
    }
}
