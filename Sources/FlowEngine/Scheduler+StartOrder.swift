import FlowPlanning

extension Scheduler {
    /// The order in which a run at -j 1 starts the plan's tasks when each succeeds: positions in
    /// `plan.tasks`, as `--dry-run` numbers them. The scheduler itself decides it, so the listing
    /// cannot drift from the run: priority first, then file order, each task after its needs and
    /// within its queue's limit. A task the run would skip (`when: failure`) is placed where the
    /// run decides to skip it.
    package static func startOrder(of plan: Plan) -> [Int] {
        var scheduler = Scheduler(plan: plan, globalLimit: 1, failFast: plan.workflow.failFast)
        var order: [Int] = []
        order.reserveCapacity(plan.tasks.count)
        var actions = scheduler.begin()
        while true {
            var started: Int?
            for action in actions {
                switch action {
                case .start(let task):
                    order.append(task)
                    started = task
                case .skip(let task, _):
                    order.append(task)
                case .ready, .finish:
                    break
                }
            }
            guard let started else { return order }
            actions = scheduler.taskFinished(started, .succeeded)
        }
    }
}
