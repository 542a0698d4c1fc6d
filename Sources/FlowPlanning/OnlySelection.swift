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
        /// The group task that `task` needs and that stands for `need`, if `need` is behind one.
        package var via: TaskID?

        package init(task: TaskID, need: TaskID, path: String, via: TaskID? = nil) {
            self.task = task
            self.need = need
            self.path = path
            self.via = via
        }
    }

    /// Marks the needs of `tasks` outside the selection as done, and returns them (file
    /// indices, in file order).
    ///
    /// The engine that runs a task with `--only` has judged its `when` already: a `when: failure`
    /// task none of whose needs is selected would otherwise be skipped ("no need failed"), so it
    /// runs as `always`, which a task without needs is.
    ///
    /// A group need taken as done stands for its own needs, as a phony target stands for its
    /// prerequisites in make: those outside the selection are taken as done with it (and the
    /// needs of a group among them, and so on), so that their outputs can be checked.
    static func takeNeedsAsDone(in tasks: inout [PlannedTask], graph: TaskGraph, specs: [TaskSpec], position: [Int]) -> [Int] {
        var outside = Set<Int>()
        for index in tasks.indices {
            let needs = graph.needs[tasks[index].fileIndex]
            let dropped = needs.filter { position[$0] < 0 }
            outside.formUnion(dropped)
            if !dropped.isEmpty, tasks[index].needs.isEmpty, tasks[index].spec.when == .failure { tasks[index].spec.when = .always }
        }
        var groups = outside.filter { standsForItsNeeds(specs[$0]) }
        while let group = groups.popFirst() {
            for need in graph.needs[group] where position[need] < 0 && outside.insert(need).inserted && standsForItsNeeds(specs[need]) {
                groups.insert(need)
            }
        }
        return outside.sorted()
    }

    /// The needs of `task` (file indices) that are in the selection, in order, without
    /// repeats: a need outside it that is a group stands for its own needs (and so on), so that
    /// a named task still waits for a named task it needs through a group, as make orders
    /// targets through a phony one.
    static func selectedNeeds(of task: Int, graph: TaskGraph, specs: [TaskSpec], position: [Int]) -> [Int] {
        var found: [Int] = []
        var seen = Set<Int>()
        func visit(_ need: Int) {
            guard seen.insert(need).inserted else { return }
            if position[need] >= 0 { return found.append(need) }
            guard case .group = specs[need].action else { return }
            for inner in graph.needs[need] { visit(inner) }
        }
        for need in graph.needs[task] { visit(need) }
        return found
    }

    /// A group task whose success says its needs succeeded: not `when: failure|always` (its
    /// needs may have failed), not `continue_on_error`.
    private static func standsForItsNeeds(_ spec: TaskSpec) -> Bool {
        guard case .group = spec.action else { return false }
        return spec.when == .success && !spec.continueOnError
    }

    /// The outputs of needs taken as done that a selected task relies on: each declared
    /// `outputs` entry, or the action's `to`, of every such need of a `when: success` task.
    /// A `when: failure|always` task runs after a need that may have failed, and a
    /// `continue_on_error` need may have failed too: their outputs are not required.
    ///
    /// A group need is looked through to the needs it stands for (`takeNeedsAsDone`); a need of
    /// the group that is selected runs here, and is not looked at.
    package static func requiredOutputs(of plan: Plan) -> [RequiredOutput] {
        guard !plan.takenAsDone.isEmpty else { return [] }
        let done = Dictionary(plan.takenAsDone.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var required: [RequiredOutput] = []
        for task in plan.tasks where task.spec.when == .success {
            var seen = Set<TaskID>()
            func require(_ need: PlannedTask, via: TaskID?) {
                guard !need.spec.continueOnError, seen.insert(need.id).inserted else { return }
                for path in writtenPaths(of: need) {
                    required.append(RequiredOutput(task: task.id, need: need.id, path: path, via: via))
                }
                guard case .group = need.action, need.spec.when == .success else { return }
                for name in need.spec.needs.map(\.value) {
                    if let inner = done[name] { require(inner, via: via ?? need.id) }
                }
            }
            for name in task.spec.needs.map(\.value) {
                if let need = done[name] { require(need, via: nil) }
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
