import FlowModel

/// Finds dependency cycles, each distinct cycle once, in time linear in an acyclic graph.
///
/// Strongly connected components come first (Tarjan's algorithm, iterative so that a
/// 100,000-task chain cannot overflow the stack). Inside each component with a cycle, every
/// `needs` edge u -> v closes the shortest cycle through it: u, then the shortest path from v
/// back to u. Two cycles that share a task or an edge are both reported; the same cycle found
/// from several of its edges is reported once. A component reports at most
/// `maxCyclesPerComponent` cycles, examines at most `maxEdgesPerComponent` edges and, once it
/// has one cycle, stops after its searches have visited `maxVisitsPerComponent` tasks: so a
/// hostile graph cannot make validation slow or its output endless. (Without the visit bound,
/// each of the examined edges of one long cycle would be searched through all of it.)
package enum CycleFinder {
    static let maxCyclesPerComponent = 10
    static let maxEdgesPerComponent = 200
    static let maxVisitsPerComponent = 1_000_000

    /// The cycles, each as task indices in `needs` order, starting at its earliest task in the file.
    package static func cycles(in graph: TaskGraph) -> [[Int]] {
        var cycles: [[Int]] = []
        var search = PathSearch(count: graph.count)
        let components = components(of: graph)
        // Which component each task is in: an array lookup per edge, not a set's hashing.
        var componentOf = [Int](repeating: -1, count: graph.count)
        for (number, component) in components.enumerated() {
            for task in component { componentOf[task] = number }
        }
        for (number, component) in components.enumerated() {
            guard component.count > 1 || graph.needs[component[0]].contains(component[0]) else { continue }
            let members = Members(componentOf: componentOf, number: number)
            var found: Set<[Int]> = []
            var examined = 0
            search.visits = 0
            edges: for task in component.sorted() {
                for need in graph.needs[task] where members.contains(need) {
                    guard examined < maxEdgesPerComponent, found.count < maxCyclesPerComponent,
                        found.isEmpty || search.visits < maxVisitsPerComponent
                    else { break edges }
                    examined += 1
                    let cycle = rotated([task] + search.shortestPath(from: need, to: task, within: members, in: graph).dropLast())
                    if found.insert(cycle).inserted { cycles.append(cycle) }
                }
            }
        }
        return cycles
    }

    /// The tasks of one component.
    struct Members {
        let componentOf: [Int]
        let number: Int
        func contains(_ task: Int) -> Bool { componentOf[task] == number }
    }

    /// Breadth-first searches along `needs` edges inside one component, with the tables of
    /// one search reused by the next.
    struct PathSearch {
        /// The task each visited task was reached from; -1 for a task not visited.
        private var previous: [Int]
        private var frontier: [Int] = []
        /// Tasks visited, over every search since it was last set to 0.
        var visits = 0

        init(count: Int) { previous = [Int](repeating: -1, count: count) }

        /// `from` ... `to`, both included.
        mutating func shortestPath(from start: Int, to goal: Int, within members: Members, in graph: TaskGraph) -> [Int] {
            frontier.removeAll(keepingCapacity: true)
            frontier.append(start)
            previous[start] = start
            var next = 0
            while next < frontier.count, previous[goal] == -1 {
                let task = frontier[next]
                next += 1
                for need in graph.needs[task] where previous[need] == -1 && members.contains(need) {
                    previous[need] = task
                    frontier.append(need)
                }
            }
            visits += frontier.count
            var path = [goal]
            while path.last != start { path.append(previous[path.last!]) }
            for task in frontier { previous[task] = -1 }
            return path.reversed()
        }
    }

    /// Strongly connected components (Tarjan), without recursion.
    static func components(of graph: TaskGraph) -> [[Int]] {
        var index = [Int](repeating: -1, count: graph.count)
        var lowLink = [Int](repeating: 0, count: graph.count)
        var onStack = [Bool](repeating: false, count: graph.count)
        var stack: [Int] = []
        var components: [[Int]] = []
        var counter = 0
        for root in 0..<graph.count where index[root] == -1 {
            var path: [(task: Int, nextEdge: Int)] = [(root, 0)]
            index[root] = counter; lowLink[root] = counter; counter += 1
            stack.append(root); onStack[root] = true
            while let (task, edge) = path.last {
                let needs = graph.needs[task]
                if edge < needs.count {
                    path[path.count - 1].nextEdge += 1
                    let need = needs[edge]
                    if index[need] == -1 {
                        index[need] = counter; lowLink[need] = counter; counter += 1
                        stack.append(need); onStack[need] = true
                        path.append((need, 0))
                    } else if onStack[need] {
                        lowLink[task] = min(lowLink[task], index[need])
                    }
                    continue
                }
                path.removeLast()
                if let parent = path.last { lowLink[parent.task] = min(lowLink[parent.task], lowLink[task]) }
                guard lowLink[task] == index[task] else { continue }
                var component: [Int] = []
                while true {
                    let member = stack.removeLast()
                    onStack[member] = false
                    component.append(member)
                    if member == task { break }
                }
                components.append(component)
            }
        }
        return components.sorted { $0.min()! < $1.min()! }
    }

    /// The same cycle, starting at its smallest index.
    static func rotated(_ cycle: [Int]) -> [Int] {
        let start = cycle.indices.min { cycle[$0] < cycle[$1] }!
        return Array(cycle[start...] + cycle[..<start])
    }

    /// One diagnostic per cycle, at the `needs` entry that leaves its first task.
    package static func diagnostics(for graph: TaskGraph, in workflow: Workflow) -> [Diagnostic] {
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
