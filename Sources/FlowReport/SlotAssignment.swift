/// Puts each task that ran on a concurrency slot, so that the tasks on one slot never overlap:
/// a sweep in start order that takes the lowest slot free by then (as a scheduler hands out
/// free workers). A task keeps its slot across its attempts and the delays between them, as
/// its operation does.
package enum SlotAssignment {
    /// The slot of each interval (nil where there is none), and how many slots were needed.
    /// An interval may start at the very millisecond another ends on the same slot.
    package static func assign(_ intervals: [(start: Int64, end: Int64)?]) -> (slots: [Int?], count: Int) {
        var slots = [Int?](repeating: nil, count: intervals.count)
        let order = intervals.indices.filter { intervals[$0] != nil }.sorted { left, right in
            let (a, b) = (intervals[left]!, intervals[right]!)
            return a.start != b.start ? a.start < b.start : a.end != b.end ? a.end < b.end : left < right
        }
        var freeAt: [Int64] = []
        for at in order {
            let interval = intervals[at]!
            if let free = freeAt.firstIndex(where: { $0 <= interval.start }) {
                slots[at] = free
                freeAt[free] = max(interval.end, interval.start)
            } else {
                slots[at] = freeAt.count
                freeAt.append(max(interval.end, interval.start))
            }
        }
        return (slots, freeAt.count)
    }
}
