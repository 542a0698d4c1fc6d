/// The chain of needs that decided when the run ended: from the task that ended last, back
/// through the need of each that ended last (the one it waited for), to a task that needed
/// nothing. Shortening any other task would not have ended the run sooner.
package enum CriticalPath {
    /// Indices into `tasks`, first to last; empty when no task ended.
    package static func find(in tasks: [RunTimeline.Task]) -> [Int] {
        func end(_ at: Int) -> Int64? { tasks[at].busy?.end }
        // Only tasks that ran: a skip takes no time, so it decides nothing.
        guard var current = tasks.indices.filter({ end($0) != nil }).max(by: { end($0)! < end($1)! || (end($0)! == end($1)! && $0 > $1) })
        else { return [] }
        var path = [current]
        var seen: Set<Int> = [current]
        while let previous = tasks[current].needs.filter({ end($0) != nil && !seen.contains($0) }).max(by: { end($0)! < end($1)! }) {
            path.append(previous)
            seen.insert(previous)
            current = previous
        }
        return path.reversed()
    }
}
