import FlowEngine

/// The timers of an `EngineLoop`, for the loop to wait until the next and take those due.
///
/// Sorted latest first, so the next to fire is the last element. A run has about one live
/// timer per running task (a timeout, a grace period, a back-off), so insertion in order is
/// cheap, and a cancelled timer is removed at once rather than left behind until its deadline.
struct LoopTimers {
    private var blocks: [UInt64: (deadline: Int64, block: @Sendable () -> Void)] = [:]
    /// (deadline, id), latest first.
    private var order: [(deadline: Int64, id: UInt64)] = []
    private var lastID: UInt64 = 0

    var nextDeadline: Int64? { order.last?.deadline }

    mutating func add(at deadline: Int64, _ block: @escaping @Sendable () -> Void) -> LoopTimer {
        lastID += 1
        blocks[lastID] = (deadline, block)
        order.insert((deadline, lastID), at: index(of: deadline, lastID))
        return LoopTimer(id: lastID)
    }

    mutating func remove(_ timer: LoopTimer) {
        guard let (deadline, _) = blocks.removeValue(forKey: timer.id) else { return }
        let at = index(of: deadline, timer.id)
        if at < order.count, order[at].id == timer.id { order.remove(at: at) }
    }

    /// The block of the earliest timer due at `now`, removed; nil if none is due.
    mutating func takeDue(at now: Int64) -> (@Sendable () -> Void)? {
        guard let next = order.last, next.deadline <= now else { return nil }
        order.removeLast()
        return blocks.removeValue(forKey: next.id)?.block
    }

    /// Where (deadline, id) is or goes: the first entry not later than it.
    private func index(of deadline: Int64, _ id: UInt64) -> Int {
        var low = 0, high = order.count
        while low < high {
            let middle = (low + high) / 2
            let entry = order[middle]
            if entry.deadline > deadline || (entry.deadline == deadline && entry.id > id) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}
