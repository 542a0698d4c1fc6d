import FlowModel

/// Finds dependency cycles in linear time with an iterative depth-first search (no recursion, so
/// a 100,000-task chain cannot overflow the stack).
///
/// Each back edge closes one cycle made of tree edges and itself, so no cycle is reported twice;
/// every strongly connected part of the graph yields at least one.
public enum CycleFinder {
    /// The cycles, each as task indices in `needs` order, starting at its earliest task in the file.
    public static func cycles(in graph: TaskGraph) -> [[Int]] {
        enum Mark: UInt8 { case unvisited, onPath, done }
        var marks = [Mark](repeating: .unvisited, count: graph.count)
        var pathPosition = [Int](repeating: -1, count: graph.count)
        var path: [(task: Int, nextEdge: Int)] = []
        var cycles: [[Int]] = []
        for start in 0..<graph.count where marks[start] == .unvisited {
            marks[start] = .onPath
            pathPosition[start] = 0
            path.append((start, 0))
            while let top = path.last {
                let edges = graph.needs[top.task]
                guard top.nextEdge < edges.count else {
                    marks[top.task] = .done
                    path.removeLast()
                    continue
                }
                path[path.count - 1].nextEdge += 1
                let next = edges[top.nextEdge]
                switch marks[next] {
                case .unvisited:
                    marks[next] = .onPath
                    pathPosition[next] = path.count
                    path.append((next, 0))
                case .onPath:
                    cycles.append(rotated(path[pathPosition[next]...].map(\.task)))
                case .done:
                    break
                }
            }
        }
        return cycles
    }

    /// The same cycle, starting at its smallest index.
    static func rotated(_ cycle: [Int]) -> [Int] {
        let start = cycle.indices.min { cycle[$0] < cycle[$1] }!
        return Array(cycle[start...] + cycle[..<start])
    }

    /// One diagnostic per cycle, at the `needs` entry that leaves its first task.
    public static func diagnostics(for graph: TaskGraph, in workflow: Workflow) -> [Diagnostic] {
        cycles(in: graph).map { cycle in
            let first = workflow.tasks[cycle[0]]
            let second = graph.ids[cycle.count > 1 ? cycle[1] : cycle[0]]
            let location = first.needs.first { $0.value == second }?.location ?? first.location
            let names = (cycle + [cycle[0]]).map { graph.ids[$0] }
            return Diagnostic(.cycle(names), at: location)
        }
    }
}

extension Diagnostic.Message {
    static func cycle(_ names: [TaskID]) -> Self {
        Self("dependency cycle: \(names.joined(separator: " -> "))")
    }
}
