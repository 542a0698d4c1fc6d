import FlowModel
import FlowPlanning
import Foundation

/// Renders a plan for `--dry-run`: the run's order, waves, queues, priorities, resolved urls and paths.
///
/// A 100,000-task plan is 600,000 lines: it is appended as bytes, a chunk of tasks at a time on
/// every core, and written a chunk at a time (`write(_:tasksPerChunk:to:)`), rather than built
/// into one `String`.
package struct PlanPrinter: Sendable {
    package var style: Style
    /// Under GitHub Actions, a line the runner would read as a workflow command (a script's
    /// `echo "##[group]Build"`) is written as text (`GitHubCommandLine`), as a run's lines are.
    package var githubActions: Bool
    package var stopToken = GitHubCommandLine.freshToken()
    package init(style: Style = Style(enabled: false), githubActions: Bool = false) {
        self.style = style
        self.githubActions = githubActions
    }

    /// Writes the plan to `output`, one block per chunk of `tasksPerChunk` tasks (at least 1).
    ///
    /// The tasks are numbered in `order` (positions in `plan.tasks`, each once): the order in
    /// which a run at -j 1 starts them (`Scheduler.startOrder(of:)`); plan order when nil. Each
    /// names its wave, the parallel view.
    ///
    /// A large plan is described on every core, a round of 16 chunks at once (about 4 MB of
    /// text for 16,384 tasks), and written in order; a small one on this thread.
    package func write(
        _ plan: Plan, order: [Int]? = nil, tasksPerChunk: Int = 1024, to output: (UnsafeRawBufferPointer) -> Void
    ) {
        guard !githubActions else {
            // Every block is whole lines.
            return withoutActuallyEscaping(output) { output in
                var plain = self
                plain.githubActions = false
                plain.write(plan, order: order, tasksPerChunk: tasksPerChunk) { block in
                    var text: [UInt8] = []
                    GitHubCommandLine.appendLinesAsText(Array(block), token: stopToken, to: &text)
                    text.withUnsafeBytes(output)
                }
            }
        }
        precondition(tasksPerChunk > 0, "PlanPrinter.write: tasksPerChunk must be at least 1")
        let listing = order ?? Array(plan.tasks.indices)
        precondition(listing.count == plan.tasks.count, "PlanPrinter.write: the order must hold every task once")
        let workflow = plan.workflow
        var text = TextBuffer()
        text.append("\(style.bold("plan")) \(workflow.name) (\(workflow.file)): ")
        text.append("\(plan.tasks.count) of \(workflow.tasks.count.counted("task")) in \(plan.waveCount.counted("wave")), ")
        text.append("concurrency \(plan.concurrency), \(workflow.failFast ? "fail fast" : "keep going")\n")
        if !workflow.queues.isEmpty {
            text.append("queues: " + workflow.queues.map { "\($0.name) (concurrency \($0.concurrency))" }.joined(separator: ", ") + "\n")
        }
        text.append("order: as a run at -j 1 starts them (priority, then file order, after their needs)\n")
        text.append("waves: the parallel view (a wave needs only earlier waves; its tasks can run at once)\n\n")
        text.flush(to: output)
        let tasksPerRound = tasksPerChunk.multipliedReportingOverflow(by: 16).overflow ? Int.max : 16 * tasksPerChunk
        for roundStart in stride(from: 0, to: listing.count, by: tasksPerRound) {
            let round = roundStart..<(roundStart + min(listing.count - roundStart, tasksPerRound))
            let blocks = ChunkedWork.map(round.count, minimumChunk: tasksPerChunk) { chunk in
                describe(listing, (round.lowerBound + chunk.lowerBound)..<(round.lowerBound + chunk.upperBound), of: plan)
            }
            for block in blocks { block.withUnsafeBytes(output) }
        }
    }

    /// The text of the tasks at `places` of the listing (positions in the plan), each numbered
    /// by its place.
    private func describe(_ listing: [Int], _ places: Range<Int>, of plan: Plan) -> [UInt8] {
        var text = TextBuffer()
        // Tasks are read in place: a `PlannedTask` copied per task would retain each of its
        // strings and arrays, for every task of a large plan.
        plan.tasks.withUnsafeBufferPointer { tasks in
            for place in places {
                describe(tasks.baseAddress! + listing[place], number: place + 1, in: tasks, secretOverrides: plan.secretOverrides, into: &text)
            }
        }
        return text.bytes
    }

    private func describe(
        _ task: UnsafePointer<PlannedTask>, number: Int, in tasks: UnsafeBufferPointer<PlannedTask>,
        secretOverrides: [String: String], into text: inout TextBuffer
    ) {
        text.append("  ")
        text.append(number)
        text.append(". ")
        text.append(style.bold(task.pointee.id))
        text.append("  ")
        text.append(task.pointee.spec.action.kind)
        text.append("  ")
        text.append(style.cyan("wave \(task.pointee.wave)"))
        if let description = task.pointee.spec.description { text.append("  \(style.dim("# " + VisibleText.escaped(description)))") }
        text.append("\n")
        var settings = SettingsLine()
        if !task.pointee.needs.isEmpty {
            settings.start(&text)
            text.append("needs ")
            for (index, need) in task.pointee.needs.enumerated() {
                if index > 0 { text.append(", ") }
                text.append(tasks[need].spec.id)
            }
        }
        if task.pointee.spec.when != .success { settings.add("when \(task.pointee.spec.when.rawValue)", to: &text) }
        if let queue = task.pointee.spec.queue { settings.add("queue \(queue)", to: &text) }
        if task.pointee.spec.priority != .normal { settings.add("priority \(task.pointee.spec.priority.rawValue)", to: &text) }
        if task.pointee.spec.retries > 0 { settings.add("retries \(task.pointee.spec.retries) (delay \(task.pointee.spec.retryDelay))", to: &text) }
        if let timeout = task.pointee.spec.timeout { settings.add("timeout \(timeout)", to: &text) }
        if task.pointee.spec.continueOnError { settings.add("continue on error", to: &text) }
        settings.end(&text)
        // A group runs nothing, anywhere: its needs are all there is to show.
        if case .group = task.pointee.spec.action { return }
        // Secret values from `--env` or the process environment are shown as `***` (`SecretName`).
        if task.pointee.spec.interpreter != .sh, case .shell(.script) = task.pointee.action {
            field("interpreter", task.pointee.spec.interpreter.argv(running: "SCRIPT").joined(separator: " "), to: &text)
        }
        if !task.pointee.arguments.isEmpty {
            startField("args", to: &text)
            for (index, argument) in task.pointee.arguments.enumerated() {
                if index > 0 { text.append(" ") }
                text.append(Self.quoted(argument))
            }
            text.append("\n")
        }
        if let shown = task.pointee.shown {
            appendAction(shown.action, to: &text)
            field("workdir", shown.workdir, to: &text)
        } else {
            appendAction(task.pointee.action, to: &text)
            field("workdir", task.pointee.workdir, to: &text)
        }
        if !task.pointee.environment.isEmpty {
            startField("env", to: &text)
            for (index, entry) in task.pointee.environment.enumerated() {
                if index > 0 { text.append(" ") }
                text.append(entry.name)
                text.append("=")
                text.append(task.pointee.isSecret(entry, secretOverrides: secretOverrides) ? SecretName.mask : Self.shown(entry.value))
            }
            text.append("\n")
        }
    }

    /// The line of settings under a task's heading, comma-separated; none when it has none.
    private struct SettingsLine {
        private var isStarted = false

        mutating func start(_ text: inout TextBuffer) {
            text.append(isStarted ? ", " : "       ")
            isStarted = true
        }

        mutating func add(_ setting: String, to text: inout TextBuffer) {
            start(&text)
            text.append(setting)
        }

        func end(_ text: inout TextBuffer) {
            if isStarted { text.append("\n") }
        }
    }

    private func startField(_ name: String, to text: inout TextBuffer) {
        text.append("       ")
        text.append(name)
        text.append(": ")
    }

    private func field(_ name: String, _ value: String, to text: inout TextBuffer) {
        startField(name, to: &text)
        text.append(value)
        text.append("\n")
    }

    private func appendAction(_ action: Action, to text: inout TextBuffer) {
        switch action {
        case .group:
            return  // its needs, on the line above, are all it does
        case .shell(.script(let script)):
            field("run", script.contains("\n") ? script.split(separator: "\n").joined(separator: "\n            ") : script, to: &text)
        case .shell(.argv(let argv)):
            startField("argv", to: &text)
            for (index, argument) in argv.enumerated() {
                if index > 0 { text.append(" ") }
                text.append(Self.quoted(argument))
            }
            text.append("\n")
        case .download(let download):
            field("url", download.url.value, to: &text)
            field("to", download.to.value, to: &text)
            if let sha256 = download.sha256 { field("sha256", sha256, to: &text) }
            // Header values are credentials as often as not (Authorization, tokens): never printed.
            for header in download.headers { field("header", "\(header.name): ***", to: &text) }
        case .decompress(let decompress):
            field("from", decompress.from.value, to: &text)
            field("to", decompress.to.value, to: &text)
            field("format", decompress.format?.rawValue ?? "detected from the content", to: &text)
            if decompress.stripComponents > 0 { field("strip_components", "\(decompress.stripComponents)", to: &text) }
            for (key, value) in [("max_files", decompress.maxFiles), ("max_bytes", decompress.maxBytes), ("max_ratio", decompress.maxRatio)] {
                if let value { field(key, "\(value)", to: &text) }
            }
        case .combine(let combine):
            for input in combine.inputs { field("input", input.value, to: &text) }
            field("to", combine.to.value, to: &text)
            field("format", combine.format.rawValue, to: &text)
            if let base = combine.base { field("base", base.value, to: &text) }
            if let prefix = combine.prefix { field("prefix", prefix.value, to: &text) }
            if combine.format == .image {
                var layout = combine.image.layout.rawValue
                if let columns = combine.image.columns { layout += ", \(columns.counted("column"))" }
                if let size = combine.image.cellSize { layout += ", cells \(size.width)x\(size.height)" }
                layout += ", background \(combine.image.background ?? "transparent")"
                field("layout", layout, to: &text)
            }
        }
    }

    /// An env value as it keeps the `env:` line one line and its `NAME=VALUE` pairs apart: as
    /// written when plain, else in YAML's double-quoted form (`"a b"`, `"first\nsecond"`,
    /// `"\x1B[31m"`), which can be pasted back into the file.
    static func shown(_ value: String) -> String {
        let plain = value.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        guard !plain || VisibleText.escaped(value) != value else { return value }
        let backslashed = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"" + VisibleText.escaped(backslashed) + "\""
    }

    /// An argument as a shell would need it written.
    static func quoted(_ argument: String) -> String {
        let plain =
            !argument.isEmpty
            && (Self.isPlainASCII(argument)
                ?? argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) })
        return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The same test on bytes, for all-ASCII text (nearly every argument); nil for other text.
    private static func isPlainASCII(_ argument: String) -> Bool? {
        var plain = true
        for byte in argument.utf8 {
            switch byte {
            case 0x80...: return nil
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: ":"),
                UInt8(ascii: ","), UInt8(ascii: "+"), UInt8(ascii: "@"), UInt8(ascii: "%"):
                continue
            default:
                plain = false
            }
        }
        return plain
    }
}
