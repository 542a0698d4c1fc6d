import FlowFiles
import FlowModel

/// Two tasks that write the same file while neither needs the other: the file ends up with
/// whichever finished last, so a green run's result would depend on timing (ninja refuses
/// "multiple rules generate" for the same reason). Writers ordered by `needs`, such as a
/// `when: failure` fallback, are allowed: the later one's file is the result.
///
/// The files counted are a download's and a combine's `to` and the literal paths of `outputs`;
/// a decompress `to` is a folder that several archives may fill.
enum WriteConflicts {
    static func diagnostics(
        in workflow: Workflow, graph: TaskGraph, resolved: [TaskResolver.Resolved?], order: [Int]
    ) -> [Diagnostic] {
        // Keyed by bytes: Swift's == takes an NFC and an NFD name as one, the file system does not.
        var writers: [[UInt8]: [(task: Int, location: SourceLocation)]] = [:]
        for task in 0..<graph.count {
            guard let written = resolved[task] else { continue }
            for file in writtenFiles(written, spec: workflow.tasks[task]) {
                let key = Array(file.path.utf8)
                if writers[key]?.last?.task != task { writers[key, default: []].append((task, file.location)) }
            }
        }
        var position = [Int](repeating: 0, count: graph.count)
        for (index, task) in order.enumerated() { position[task] = index }
        var diagnostics: [(diagnostic: Diagnostic, task: Int, path: [UInt8])] = []
        for (key, tasks) in writers where tasks.count > 1 {
            let path = String(decoding: key, as: UTF8.self)
            // In run order, each writer must wait for the one before it.
            let sorted = tasks.sorted { position[$0.task] < position[$1.task] }
            for (earlier, later) in zip(sorted, sorted.dropFirst()) where !graph.reaches(later.task, earlier.task) {
                // By bytes: a name that starts with a combining mark is one Character with its `/`.
                let shown = PathNesting.relative(path, to: workflow.directory) ?? path
                let diagnostic = Diagnostic(
                    .unorderedWriters(shown, task: graph.ids[later.task], other: graph.ids[earlier.task]), at: later.location)
                diagnostics.append((diagnostic, position[later.task], key))
                break
            }
        }
        // The dictionary's order changes from run to run; a matrix's combinations share one
        // location, so they are ordered as they run, then by path.
        return diagnostics.sorted {
            let (left, right) = ($0.diagnostic.location, $1.diagnostic.location)
            if (left.line, left.column, $0.task) != (right.line, right.column, $1.task) {
                return (left.line, left.column, $0.task) < (right.line, right.column, $1.task)
            }
            return $0.path.lexicographicallyPrecedes($1.path)
        }.map(\.diagnostic)
    }

    /// The files a resolved task writes, each with where it is written in the file.
    private static func writtenFiles(_ resolved: TaskResolver.Resolved, spec: TaskSpec) -> [(path: String, location: SourceLocation)] {
        var files: [(path: String, location: SourceLocation)] = []
        switch resolved.action {
        case .download(let download): files.append((download.to.value, download.to.location))
        case .combine(let combine): files.append((combine.to.value, combine.to.location))
        case .shell, .group, .decompress: break
        }
        // Resolved outputs are the written ones in order (a task with one that failed has no plan).
        for (path, written) in zip(resolved.outputs, spec.outputs) where !PathGlob.isPattern(written.value) {
            files.append((path, written.location))
        }
        return files
    }
}

extension TaskGraph {
    /// Whether `task` waits, through its needs, for `other`.
    func reaches(_ task: Int, _ other: Int) -> Bool {
        var seen = Set<Int>([task])
        var stack = [task]
        while let next = stack.popLast() {
            for need in needs[next] {
                if need == other { return true }
                if seen.insert(need).inserted { stack.append(need) }
            }
        }
        return false
    }
}

extension Diagnostic.Message {
    static func unorderedWriters(_ path: String, task: TaskID, other: TaskID) -> Self {
        Self(
            "task '\(task)' writes '\(path)', as task '\(other)' does, and neither needs the other: the file would hold whichever finished last",
            hint: "write to different paths (a matrix task: put ${matrix.NAME} in the path), or add 'needs: [\(other)]'")
    }
}
