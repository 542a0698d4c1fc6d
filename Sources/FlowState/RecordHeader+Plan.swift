import FlowPlanning

extension RecordHeader.PlanEntry {
    /// Each task of `plan`, in plan order, as a record's plan line keeps it (no fingerprint yet).
    package static func entries(of plan: Plan) -> [Self] {
        plan.tasks.map { task in
            Self(
                task: task.id, needs: task.needs.map { plan.tasks[$0].id }, kind: task.spec.action.kind, queue: task.spec.queue,
                priority: task.spec.priority.rawValue)
        }
    }
}
