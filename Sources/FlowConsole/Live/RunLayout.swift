import FlowModel
import FlowPlanning

/// What the live view knows of a run before it starts: each task's queue, the queues' limits,
/// and how wide a task prefix is.
///
/// Events name tasks, not queues; the view needs the plan's queues to say which one holds tasks
/// back (`12 waiting · queue network full (3/3)`), and every task's id to pad the prefixes of
/// output lines to one width from the first line on, and to give each a colour.
package struct RunLayout: Sendable {
    /// Prefixes are padded to the widest id, but no wider than this: one very long id would
    /// otherwise push every line of output far to the right.
    package static let widestPrefix = 24

    /// The width of a task prefix: the widest id among the run's tasks, at most `widestPrefix`.
    package var prefixWidth = 0
    /// The queue of each task that names one.
    package var queues: [TaskID: String] = [:]
    /// Each named queue's limit.
    package var limits: [String: Int] = [:]
    /// Each task's position in the plan, for its colour (`TaskPrefixes`).
    package var order: [TaskID: Int] = [:]

    package init() {}

    package init(_ plan: Plan) {
        prefixWidth = min(plan.tasks.lazy.map(\.id.count).max() ?? 0, Self.widestPrefix)
        for (position, task) in plan.tasks.enumerated() {
            order[task.id] = position
            if let queue = task.spec.queue { queues[task.id] = queue }
        }
        for queue in plan.workflow.queues { limits[queue.name] = queue.concurrency }
    }
}
