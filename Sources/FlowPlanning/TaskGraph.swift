import FlowModel

/// The tasks of a workflow as dense integer ids (file order) and their `needs` edges.
package struct TaskGraph: Sendable {
    package let ids: [TaskID]
    /// For each task, the tasks it needs, in the order written, without repeats.
    package let needs: [[Int]]
    package let index: [TaskID: Int]

    package var count: Int { ids.count }

    /// How many unknown needs of a file get a did-you-mean hint.
    package static let suggestionLimit = 50

    /// Builds the graph, reporting needs that name no declared task.
    ///
    /// `alsoDeclared` names tasks that were declared but could not be decoded: needing them is not
    /// an error of its own.
    package static func build(_ workflow: Workflow, alsoDeclared: Set<TaskID> = []) -> (TaskGraph, [Diagnostic]) {
        var index: [TaskID: Int] = [:]
        index.reserveCapacity(workflow.tasks.count)
        // By position, not `for task in`: that copies each TaskSpec, retaining a dozen fields.
        for position in workflow.tasks.indices { index[workflow.tasks[position].id] = position }
        // Each task's needs are looked up on their own: a large file's on every core.
        let (needs, reports) = ChunkedWork.gather(workflow.tasks.count) { [index] range, add in
            var unknown: [(name: String, task: Int, location: SourceLocation)] = []
            var itself: [Diagnostic] = []
            for position in range {
                let written = workflow.tasks[position].needs
                var edges: [Int] = []
                edges.reserveCapacity(written.count)
                // Repeats are dropped by a scan for the usual few needs, by a set for many (a
                // scan is quadratic in a task's needs, and one task may need 100,000 others).
                var seen: Set<Int>? = written.count > 32 ? [] : nil
                var ownEntries: [SourceLocation] = []
                for need in written {
                    if let target = index[need.value] {
                        if target == position {
                            ownEntries.append(need.location)
                        } else if seen?.insert(target).inserted ?? !edges.contains(target) {
                            edges.append(target)
                        }
                    } else if !alsoDeclared.contains(need.value) {
                        unknown.append((need.value, position, need.location))
                    }
                }
                if !ownEntries.isEmpty {
                    itself += ownEntries.map { Self.needsItself(workflow, task: position, entry: $0) }
                    // A matrix task's name, written where its own combination came from, also
                    // gave the others: each edge would close a cycle of its own, all reported at
                    // the one entry; that entry is the error.
                    let named = Set(written.lazy.filter { ownEntries.contains($0.location) }.compactMap { index[$0.value] })
                    edges.removeAll { named.contains($0) }
                }
                add(edges)
            }
            return (unknown: unknown, itself: itself)
        }
        let unknown = Array(reports.map(\.unknown).joined())
        // Every combination of a matrix task reports its entry: once is enough.
        var reported: Set<Diagnostic> = []
        let itself = reports.map(\.itself).joined().filter { reported.insert($0).inserted }
        // A did-you-mean compares a name with every task id: only the first names of a file
        // get one (as clang stops after 50), so that a generated file with thousands of broken
        // needs is reported in a moment rather than in minutes.
        let ids = workflow.tasks.map(\.id)
        let candidates = unknown.isEmpty ? [] : workflow.matrixCombinations.keys.sorted() + ids + alsoDeclared.sorted()
        let diagnostics = unknown.enumerated().map { number, need in
            let suggestion = number < suggestionLimit ? Spelling.suggestion(for: need.name, among: candidates) : nil
            return Diagnostic(.unknownNeed(need.name, task: ids[need.task], suggestion: suggestion), at: need.location)
        }
        return (TaskGraph(ids: ids, needs: needs, index: index), diagnostics + itself)
    }

    /// `task 'build' needs itself`, at the `needs` entry: for a matrix task whose entry is its
    /// name, which names every combination of it (the entry's own among them).
    static func needsItself(_ workflow: Workflow, task: Int, entry: SourceLocation) -> Diagnostic {
        let id = workflow.tasks[task].id
        if let open = id.firstIndex(of: "["), let combinations = workflow.matrixCombinations[String(id[..<open])],
            workflow.tasks[task].needs.count(where: { $0.location == entry }) == combinations.count
        {
            return Diagnostic(.needsItself(String(id[..<open]), matrix: true), at: entry)
        }
        return Diagnostic(.needsItself(id, matrix: false), at: entry)
    }

    /// For each task, the tasks that need it, in file order.
    package func dependents() -> Dependents {
        Dependents(count: count) { needs[$0] }
    }
}

extension Diagnostic.Message {
    static func needsItself(_ task: TaskID, matrix: Bool) -> Self {
        Self("task '\(task)' needs itself" + (matrix ? ": a matrix task's `needs` names every combination of it" : ""))
    }
    static func unknownNeed(_ name: String, task: TaskID, suggestion: String?) -> Self {
        Self("task '\(task)' needs '\(name)', which is not a task in this file", hint: suggestion.map { "did you mean '\($0)'?" })
    }
}
