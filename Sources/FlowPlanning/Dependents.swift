/// For each task, the tasks that need it, in file order: the graph's edges turned around.
///
/// Kept in one flat array with an offset per task (compressed rows), so a graph of 100,000
/// tasks costs two allocations instead of one array per task; the topological sort and the
/// scheduler both walk it once per finished task.
package struct Dependents: Sendable {
    /// Where each task's dependents start in `all`; one more entry than there are tasks.
    private let start: [Int]
    private let all: [Int]

    /// `needs(task)` is what `task` needs, for each of `count` tasks.
    package init(count: Int, needs: (Int) -> [Int]) {
        var start = [Int](repeating: 0, count: count + 1)
        for task in 0..<count {
            for need in needs(task) { start[need + 1] += 1 }
        }
        for task in 0..<count { start[task + 1] += start[task] }
        var next = start
        var all = [Int](repeating: 0, count: start[count])
        for task in 0..<count {
            for need in needs(task) {
                all[next[need]] = task
                next[need] += 1
            }
        }
        self.start = start
        self.all = all
    }

    package subscript(task: Int) -> ArraySlice<Int> {
        all[start[task]..<start[task + 1]]
    }
}
