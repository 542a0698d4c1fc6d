import FlowModel

/// `run --only TASK...`: exactly the named tasks, their other needs taken as done, so that one
/// task can run on another machine (what exported jobs call).
package enum OnlySelection {
    /// A file that a need taken as done must have left behind.
    package struct RequiredOutput: Equatable, Sendable {
        package var task: TaskID
        package var need: TaskID
        /// Absolute; a glob when the need declared one (it must then match a file).
        package var path: String

        package init(task: TaskID, need: TaskID, path: String) {
            self.task = task
            self.need = need
            self.path = path
        }
    }

    /// Marks the needs of `tasks` outside the selection as done, and returns them (file
    /// indices, in file order).
    ///
    /// The engine that runs a task with `--only` has judged its `when` already: a `when: failure`
    /// task none of whose needs is selected would otherwise be skipped ("no need failed"), so it
    /// runs as `always`, which a task without needs is.
    static func takeNeedsAsDone(in tasks: inout [PlannedTask], graph: TaskGraph, position: [Int]) -> [Int] {
        var outside = Set<Int>()
        for index in tasks.indices {
            let needs = graph.needs[tasks[index].fileIndex]
            let dropped = needs.filter { position[$0] < 0 }
            outside.formUnion(dropped)
            if !dropped.isEmpty, tasks[index].needs.isEmpty, tasks[index].spec.when == .failure { tasks[index].spec.when = .always }
        }
        return outside.sorted()
    }

    /// The outputs of needs taken as done that a selected task relies on: each declared
    /// `outputs` entry, or the action's `to`, of every such need of a `when: success` task.
    /// A `when: failure|always` task runs after a need that may have failed, and a
    /// `continue_on_error` need may have failed too: their outputs are not required.
    package static func requiredOutputs(of plan: Plan) -> [RequiredOutput] {
        guard !plan.takenAsDone.isEmpty else { return [] }
        let done = Dictionary(plan.takenAsDone.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var required: [RequiredOutput] = []
        for task in plan.tasks where task.spec.when == .success {
            for name in task.spec.needs.map(\.value) {
                guard let need = done[name], !need.spec.continueOnError else { continue }
                for path in writtenPaths(of: need) where !required.contains(where: { $0.need == name && $0.path == path && $0.task == task.id }) {
                    required.append(RequiredOutput(task: task.id, need: name, path: path))
                }
            }
        }
        return required
    }

    /// What a task leaves behind: its declared `outputs`, else its action's `to` (absolute).
    package static func writtenPaths(of task: PlannedTask) -> [String] {
        if !task.outputs.isEmpty { return task.outputs }
        switch task.action {
        case .shell, .group: return []
        case .download(let download): return [download.to.value]
        case .decompress(let decompress): return [decompress.to.value]
        case .combine(let combine): return [combine.to.value]
        }
    }
}
