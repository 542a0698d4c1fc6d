import FlowModel

/// Which tasks wait for a slot, and what holds them back: `12 waiting · queue network full (3/3)`.
///
/// A task waits from its `task.ready` (its needs are done) to its first `task.started`, and
/// holds a slot of its queue from then to its final event (a retry's delay included, as the
/// engine keeps the slot). Counts per queue are kept as events come, so a frame costs nothing
/// per task.
struct QueueOccupancy {
    let layout: RunLayout
    private var waiting: Set<TaskID> = []
    private var running: Set<TaskID> = []
    private var waitingIn: [String: Int] = [:]
    private var runningIn: [String: Int] = [:]

    init(layout: RunLayout) {
        self.layout = layout
    }

    var waitingCount: Int { waiting.count }

    mutating func ready(_ task: TaskID) {
        guard waiting.insert(task).inserted, let queue = layout.queues[task] else { return }
        waitingIn[queue, default: 0] += 1
    }

    mutating func started(_ task: TaskID) {
        guard running.insert(task).inserted else { return }  // a retry
        let queue = layout.queues[task]
        if waiting.remove(task) != nil, let queue { waitingIn[queue, default: 0] -= 1 }
        if let queue { runningIn[queue, default: 0] += 1 }
    }

    /// A final event: the task neither waits nor holds a slot any more.
    mutating func ended(_ task: TaskID) {
        let queue = layout.queues[task]
        if waiting.remove(task) != nil, let queue { waitingIn[queue, default: 0] -= 1 }
        if running.remove(task) != nil, let queue { runningIn[queue, default: 0] -= 1 }
    }

    /// `12 waiting · queue network full (3/3)`: the named queues that are full while tasks of
    /// theirs wait (in name order), then the run's concurrency if it is full; nil if none waits.
    func text(concurrency: Int) -> String? {
        guard !waiting.isEmpty else { return nil }
        var text = "\(waiting.count) waiting"
        var full = waitingIn.keys.sorted().compactMap { queue -> String? in
            guard waitingIn[queue, default: 0] > 0, let limit = layout.limits[queue], runningIn[queue, default: 0] >= limit else {
                return nil
            }
            return "queue \(queue) full (\(runningIn[queue, default: 0])/\(limit))"
        }
        if concurrency > 0, running.count >= concurrency { full.append("concurrency full (\(running.count)/\(concurrency))") }
        return ([text] + full).joined(separator: " · ")
    }
}
