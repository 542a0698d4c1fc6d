import FlowModel

/// What the live view shows, as a value: the events recorded so far, turned into lines on demand.
///
/// The pure half of `LiveConsole`, which owns the terminal, the timer and the lock: recording
/// an event only updates a few fields and appends to a list (the bus must not wait on the
/// terminal), and the text is made when a frame is drawn. Tested without a terminal or a clock.
struct LiveView {
    /// The most output lines held between two frames; beyond them lines are counted, not kept,
    /// so that a task printing faster than the terminal can scroll cannot grow memory without bound.
    static let outputLinesPerFrame = 10_000
    /// The most executing tasks listed; the others are counted on one line.
    static let maximumTaskLines = 20
    /// The width of a progress bar, in columns.
    static let barWidth = 20

    let style: Style
    let summaryMode: SummaryMode
    /// `-v`: each task's command, shown when it starts, and a line for each task kept; nil for none.
    let commands: TaskCommands?
    /// How to pause, said in the header; nil when the view does not say (a test's view).
    let pauseHint: PauseHint?
    private(set) var workflow = ""
    private(set) var total = 0
    private var concurrency = 0
    private var occupancy: QueueOccupancy
    /// How output lines are prefixed: the layout's tasks, and any other once it starts.
    private(set) var prefixes: TaskPrefixes
    private(set) var startedAt: Int64?
    private var running: [TaskID: Running] = [:]
    private var nextOrder = 0
    private(set) var counts = FinalCounts()
    /// The failures' last output lines, for the summary: what made them fail may have scrolled away.
    private(set) var tails = FailureTails()
    /// The run `--resume` kept tasks from, named in the summary's done-before line.
    private(set) var resumedRun: String?
    private var suspended = false
    /// Lines to print above the live area at the next frame, not yet rendered.
    private var notes: [Note] = []
    private var outputNotes = 0
    private var droppedOutput = 0
    /// Every task that reached its final state, in the order they did.
    private(set) var results: [TaskResult] = []
    private(set) var finish: (status: RunStatus, durationMilliseconds: Int64)?
    /// How many events were recorded.
    private(set) var recorded = 0

    init(
        style: Style, layout: RunLayout = RunLayout(), summaryMode: SummaryMode = .auto, commands: TaskCommands? = nil,
        pauseHint: PauseHint? = nil
    ) {
        self.style = style
        self.summaryMode = summaryMode
        self.commands = commands
        self.pauseHint = pauseHint
        occupancy = QueueOccupancy(layout: layout)
        prefixes = TaskPrefixes(layout)
    }

    /// A task between its `task.started` and its final event.
    private struct Running {
        var order: Int
        var startedAt: Int64
        var attempt: Int
        var progress: (done: Int64, total: Int64?, unit: ProgressUnit)?
        /// The attempt's first progress report and the time of its latest: the rate's span.
        var progressSince: (time: Int64, done: Int64)?
        var progressAt: Int64 = 0
        /// When the next attempt starts, while the task waits to retry.
        var retryAt: Int64?
    }

    /// A line to print above the live area.
    enum Note {
        case workflowStarted(workflow: String, tasks: Int, concurrency: Int)
        case output(TaskID, OutputStream, String)
        /// `-v`: a line of a task's command, as it starts.
        case command(TaskID, String)
        /// `-v`: a task kept (up to date, or done before), and how.
        case kept(TaskID, String)
        case retrying(TaskID, attempt: Int, delayMilliseconds: Int64, reason: String)
        case result(TaskResult)
        case queue(suspended: Bool)
        case cleanup(reason: String, tasks: [TaskID])
        case droppedOutput(Int)
    }

    /// How one task ended, for its line as it happens and its row in the summary.
    struct TaskResult {
        /// `allowed`: a failure of a `continue_on_error` task, which does not fail the run.
        enum Outcome: String { case succeeded, failed, allowed, cancelled, skipped }
        var task: TaskID
        var outcome: Outcome
        /// Nil for a task that never started.
        var durationMilliseconds: Int64?
        var attempts: Int?
        var reason: String?
    }

    mutating func record(_ event: RunEvent) {
        recorded += 1
        tails.record(event)
        switch event.kind {
        case .workflowStarted(let workflow, _, let tasks, let concurrency):
            self.workflow = workflow
            total = tasks
            self.concurrency = concurrency
            startedAt = event.timeMilliseconds
            notes.append(.workflowStarted(workflow: workflow, tasks: tasks, concurrency: concurrency))
        case .taskReady(let task):
            occupancy.ready(task)
        case .taskStarted(let task, let attempt, _):
            occupancy.started(task)
            prefixes.add(task)
            if attempt == 1, let commands { notes += commands.lines(of: task).map { .command(task, $0) } }
            if var current = running[task] {
                current.attempt = attempt
                current.retryAt = nil
                current.progress = nil
                current.progressSince = nil
                running[task] = current
            } else {
                running[task] = Running(order: nextOrder, startedAt: event.timeMilliseconds, attempt: attempt)
                nextOrder += 1
            }
        case .taskOutput(let task, let stream, let line):
            guard outputNotes < Self.outputLinesPerFrame else {
                droppedOutput += 1
                return
            }
            outputNotes += 1
            notes.append(.output(task, stream, line))
        case .taskProgress(let task, let done, let total, let unit):
            running[task]?.progress = (done, total, unit)
            running[task]?.progressAt = event.timeMilliseconds
            if running[task]?.progressSince == nil { running[task]?.progressSince = (event.timeMilliseconds, done) }
        case .taskRetrying(let task, let attempt, let delay, let reason, _):
            running[task]?.retryAt = event.timeMilliseconds + delay
            notes.append(.retrying(task, attempt: attempt, delayMilliseconds: delay, reason: reason))
        case .taskSucceeded(let task, let attempts, let duration):
            counts.succeeded += 1
            ended(TaskResult(task: task, outcome: .succeeded, durationMilliseconds: duration, attempts: attempts))
        case .taskFailed(let task, let attempts, let duration, let reason, _, let allowed):
            counts.failed += 1
            if allowed { counts.allowed += 1 }
            ended(
                TaskResult(
                    task: task, outcome: allowed ? .allowed : .failed, durationMilliseconds: duration, attempts: attempts, reason: reason))
        case .taskCancelled(let task, let reason):
            counts.cancelled += 1
            // No duration in the event: the time since it started, if it did.
            let current = running[task]
            ended(
                TaskResult(
                    task: task, outcome: .cancelled,
                    durationMilliseconds: current.map { event.timeMilliseconds - $0.startedAt },
                    attempts: current?.attempt, reason: reason))
        case .taskSkipped(let task, _, let run) where run != nil:
            counts.skipped += 1
            counts.doneBefore += 1
            resumedRun = run
            // As up-to-date tasks: the counter and one summary line.
            running[task] = nil
            if commands != nil { notes.append(.kept(task, "done before (run \(run ?? ""))")) }
            occupancy.ended(task)
        case .taskSkipped(let task, let reason, _) where reason == SkipReason.upToDate:
            counts.skipped += 1
            counts.upToDate += 1
            // No line each (but with -v): the counter shows them, and the summary has one line for them all.
            running[task] = nil
            if commands != nil { notes.append(.kept(task, "up to date")) }
            occupancy.ended(task)
        case .taskSkipped(let task, let reason, _):
            counts.skipped += 1
            ended(TaskResult(task: task, outcome: .skipped, reason: reason))
        case .queueSuspended, .queueResumed:
            suspended = event.kind == .queueSuspended
            notes.append(.queue(suspended: suspended))
        case .workflowCleanup(let reason, let tasks):
            notes.append(.cleanup(reason: reason, tasks: tasks))
        case .workflowFinished(_, let status, let duration, _):
            finish = (status, duration)
        }
    }

    private mutating func ended(_ result: TaskResult) {
        occupancy.ended(result.task)
        running[result.task] = nil
        results.append(result)
        notes.append(.result(result))
    }

    /// The notes since the last call, to render and print above the live area.
    mutating func takeNotes() -> [Note] {
        var taken: [Note] = []
        swap(&taken, &notes)
        if droppedOutput > 0 { taken.append(.droppedOutput(droppedOutput)) }
        outputNotes = 0
        droppedOutput = 0
        return taken
    }

    // MARK: Rendering

    /// The live area at `now`: a line per executing task (the longest-running first), then the
    /// counter; each at most `columns - 1` wide, so that no terminal wraps it; empty before the run.
    func liveLines(now: Int64, columns: Int, rows: Int) -> [String] {
        guard let startedAt else { return [] }
        let width = max(columns - 1, 10)
        let shown = running.sorted { $0.value.order < $1.value.order }.prefix(min(Self.maximumTaskLines, max(rows - 3, 1)))
        let idWidth = min(shown.map(\.key.count).max() ?? 0, 32)
        var lines: [String] = []
        for (task, current) in shown {
            var line = LiveLine(width: width, style: style)
            line.append("  ")
            line.append(Self.rightPadded(task, idWidth), .task(prefixes.colour(of: task)))
            line.append("  ")
            if let retryAt = current.retryAt {
                line.append("retry in \(DurationText.string(milliseconds: retryAt - now)) (attempt \(current.attempt) failed)", .yellow)
            } else {
                line.append(Self.leftPadded(DurationText.string(milliseconds: now - current.startedAt), 6))
                if current.attempt > 1 { line.append("  attempt \(current.attempt)", .dim) }
                if let progress = current.progress { appendProgress(progress, rate: Self.rate(of: current), to: &line) }
            }
            lines.append(line.text)
        }
        if running.count > shown.count {
            var line = LiveLine(width: width, style: style)
            line.append("  … and \(running.count - shown.count) more", .dim)
            lines.append(line.text)
        }
        let done = counts.succeeded + counts.failed + counts.cancelled + counts.skipped
        var counter = LiveLine(width: width, style: style)
        counter.append("\(done)/\(total) done", .bold)
        counter.append(", \(running.count) running")
        if counts.failed > counts.allowed { counter.append(", \(counts.failed - counts.allowed) failed", .red) }
        if counts.allowed > 0 { counter.append(", \(counts.allowed) allowed", .yellow) }
        if counts.upToDate > 0 { counter.append(", \(counts.upToDate) up to date", .dim) }
        if counts.doneBefore > 0 { counter.append(", \(counts.doneBefore) done before", .dim) }
        counter.append(" · \(DurationText.string(milliseconds: now - startedAt))", .dim)
        // Tasks kept from before ended at once, and say nothing of the rate of the others.
        let kept = counts.upToDate + counts.doneBefore
        if !suspended,  // no task starts while paused: no rate to go by
            let left = RunEstimate.millisecondsLeft(finished: done - kept, total: total - kept, elapsedMilliseconds: now - startedAt)
        {
            counter.append(" · ETA \(DurationText.string(milliseconds: left))", .dim)
        }
        if suspended { counter.append(" · paused (\(pauseHint?.resumes ?? "SIGUSR2") resumes)", .yellow) }
        // Last, being the longest: a narrow terminal cuts it, not the times.
        if let waiting = occupancy.text(concurrency: concurrency) { counter.append(" · \(waiting)", .yellow) }
        lines.append(counter.text)
        return lines
    }

    /// The bar, then the amount and the rate. A narrow terminal shrinks the bar, and drops it
    /// below 5 columns, before it cuts the numbers (an 80-column one cut the time left).
    private func appendProgress(_ progress: (done: Int64, total: Int64?, unit: ProgressUnit), rate: String, to line: inout LiveLine) {
        line.append("  ")
        guard let total = progress.total, total > 0 else {
            line.append(ProgressText.amount(progress.done, unit: progress.unit))
            line.append(rate, .dim)
            return
        }
        let amount = ProgressText.string(done: progress.done, total: total, unit: progress.unit)
        let barWidth = min(Self.barWidth, line.remaining - 2 - amount.count - rate.count)
        if barWidth >= 5 {
            let filled = Int(ProgressText.percent(done: progress.done, total: total)) * barWidth / 100
            line.append(String(repeating: "█", count: filled), .cyan)
            line.append(String(repeating: "░", count: barWidth - filled), .dim)
            line.append("  ")
        }
        line.append(amount)
        line.append(rate, .dim)
    }

    /// `  1.2 MB/s, 8s left`: the average since the attempt's first report, and the time the
    /// rest takes at that rate. Empty until a second report spans some time.
    private static func rate(of task: Running) -> String {
        guard let progress = task.progress, let since = task.progressSince else { return "" }
        let elapsed = task.progressAt - since.time, moved = progress.done - since.done
        guard elapsed > 0, moved > 0 else { return "" }
        let perSecond = Int64(Double(moved) * 1000 / Double(elapsed))
        var text = "  \(ProgressText.amount(perSecond, unit: progress.unit))/s"
        if let total = progress.total, total > progress.done {
            let left = Int64(Double(total - progress.done) * Double(elapsed) / Double(moved))
            text += ", \(DurationText.string(milliseconds: left)) left"
        }
        return text
    }

    /// The lines of `notes`, each ending in a newline. Task text passes through `ConsoleText`:
    /// an escape sequence from a task would otherwise move the cursor the live area counts on;
    /// its colours (SGR) are kept when colour is on.
    static func render(
        _ notes: [Note], style: Style, prefixes: TaskPrefixes = TaskPrefixes(RunLayout()), pauseHint: PauseHint? = nil
    ) -> String {
        var text = ""
        for note in notes {
            switch note {
            case .workflowStarted(let workflow, let tasks, let concurrency):
                text += style.dim(SummaryText.started(workflow: workflow, tasks: tasks, concurrency: concurrency))
                if let pauseHint { text += "\n" + style.dim(pauseHint.header) }
            case .output(let task, let stream, let line):
                let sanitized = ConsoleText.sanitized(line, keepingColours: style.enabled)
                text += prefixes.prefix(task, style: style) + " "
                text += stream == .stdout ? style.dim("|") : style.yellow("!")
                if !sanitized.isEmpty { text += " \(sanitized)" }
            case .command(let task, let line):
                text += prefixes.prefix(task, style: style) + " " + style.cyan(line)
            case .kept(let task, let how):
                text += style.dim("· \(task) \(ConsoleText.sanitized(how))")
            case .retrying(let task, let attempt, let delay, let reason):
                text += style.yellow("↻ \(task) retrying in \(DurationText.string(milliseconds: delay))")
                text += ": \(ConsoleText.sanitized(reason)) (attempt \(attempt) failed)"
            case .result(let result):
                text += resultLine(result, style: style)
            case .queue(let suspended):
                let resumes = pauseHint?.resumes ?? "SIGUSR2"
                text += style.yellow(suspended ? "paused: running tasks go on, none starts until \(resumes)" : "resumed")
            case .cleanup(let reason, let tasks):
                text += style.yellow(CleanupText.line(reason: reason, tasks: tasks))
            case .droppedOutput(let count):
                text += style.yellow(
                    "… \(count.counted("line")) of output not shown: more than the terminal could keep up with (--events plain shows every line)")
            }
            text += "\n"
        }
        return text
    }

    /// `✓ build 1.2s`, `✗ build failed: exited with status 2`, and so on.
    private static func resultLine(_ result: TaskResult, style: Style) -> String {
        let reason = ConsoleText.sanitized(result.reason ?? "")
        switch result.outcome {
        case .succeeded:
            let attempts = (result.attempts ?? 1) > 1 ? " (\(result.attempts ?? 1) attempts)" : ""
            return "\(style.green("✓")) \(result.task) \(style.dim(DurationText.string(milliseconds: result.durationMilliseconds ?? 0) + attempts))"
        case .failed:
            return "\(style.red("✗ \(result.task) failed")): \(reason)"
        case .allowed:
            return "\(style.yellow("⚠ \(result.task) allowed failure")): \(reason) (continue_on_error)"
        case .cancelled:
            return "\(style.yellow("⊘ \(result.task) cancelled")): \(reason)"
        case .skipped:
            return style.dim("- \(result.task) skipped: \(reason)")
        }
    }

    static func rightPadded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func leftPadded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
