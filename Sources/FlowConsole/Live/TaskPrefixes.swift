import FlowModel

/// How the live view prefixes output lines: every task's id padded to one width, and in a
/// colour of its own.
///
/// Colours go round a palette in the plan's order (the order of first start for a task the
/// plan did not name), so up to ten tasks all differ, neighbours in the file differ, and a task
/// keeps its colour for the run, and from run to run of the same file. Red is left out: it
/// means failure.
struct TaskPrefixes: Sendable {
    /// SGR codes: cyan, magenta, blue, green, yellow, then their bright forms.
    static let palette = ["36", "35", "34", "32", "33", "96", "95", "94", "92", "93"]

    /// The width of a prefix: the widest id, at most `RunLayout.widestPrefix`.
    private(set) var width: Int
    /// Each task's place in the palette's round.
    private var order: [TaskID: Int]

    init(_ layout: RunLayout) {
        width = layout.prefixWidth
        order = layout.order
    }

    /// Makes room for a task that was not in the layout.
    mutating func add(_ task: TaskID) {
        guard order[task] == nil else { return }
        order[task] = order.count
        width = max(width, min(task.count, RunLayout.widestPrefix))
    }

    /// The SGR code of `task`'s colour.
    func colour(of task: TaskID) -> String {
        Self.palette[(order[task] ?? 0) % Self.palette.count]
    }

    /// `task` padded to the width, in its colour when colour is on.
    func prefix(_ task: TaskID, style: Style) -> String {
        let padded = LiveView.rightPadded(task, width)
        return style.enabled ? "\u{1B}[\(colour(of: task))m\(padded)\u{1B}[0m" : padded
    }
}
