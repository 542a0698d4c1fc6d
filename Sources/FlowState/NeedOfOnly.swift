import FlowModel
import FlowPlanning

/// One need of a task under `run --only`, as a whole run has the task's needs: a task of the
/// plan (by its index), or one taken as done (by its id: it is not in the plan).
///
/// `--only` leaves the needs taken as done out of each task's `needs`; a fingerprint over what
/// is left differs from the one a whole run takes, and the whole run after `--only TASK` ran
/// TASK again ("changed need") though nothing had changed.
enum NeedOfOnly: Equatable {
    case planned(Int)
    case takenAsDone(TaskID)

    /// For each task of `plan` with a need taken as done, by plan index, its needs in the order
    /// written, without repeats (as `TaskGraph` has them); nil when no need is taken as done.
    static func needs(in plan: Plan) -> [Int: [NeedOfOnly]]? {
        guard !plan.takenAsDone.isEmpty else { return nil }
        let done = Set(plan.takenAsDone.map(\.id))
        var positions: [TaskID: Int] = [:]
        for (position, task) in plan.tasks.enumerated() { positions[task.id] = position }
        var needs: [Int: [NeedOfOnly]] = [:]
        for (index, task) in plan.tasks.enumerated() where task.spec.needs.contains(where: { done.contains($0.value) }) {
            var seen = Set<TaskID>()
            needs[index] = task.spec.needs.compactMap { need in
                guard seen.insert(need.value).inserted else { return nil }
                if let position = positions[need.value] { return .planned(position) }
                return done.contains(need.value) ? .takenAsDone(need.value) : nil
            }
        }
        return needs
    }
}
