import FlowModel
import FlowPlanning

/// What the engine reads of a task at its events and ends, kept apart from the plan: reading a
/// field of `plan.tasks[i]` copies the whole `PlannedTask` first (its strings, arrays and
/// action, each retained and released), about 1,000 instructions a read, several reads a task.
struct TaskFacts: Sendable {
    let id: TaskID
    /// The action's key, as `task.started` names it.
    let kind: String
    /// A group has nothing to run: it succeeds as it starts.
    let isGroup: Bool
    let when: When
    let continueOnError: Bool

    /// The facts of every task of `plan`, in plan order, read in place (no task copied).
    static func of(_ plan: Plan) -> [TaskFacts] {
        plan.tasks.withUnsafeBufferPointer { tasks in
            tasks.indices.map { index in
                let isGroup: Bool
                if case .group = tasks[index].spec.action { isGroup = true } else { isGroup = false }
                return TaskFacts(
                    id: tasks[index].spec.id, kind: tasks[index].spec.action.kind, isGroup: isGroup, when: tasks[index].spec.when,
                    continueOnError: tasks[index].spec.continueOnError)
            }
        }
    }
}
