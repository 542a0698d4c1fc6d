import Dispatch
import FlowEvents
import FlowModel
import Glibc

/// The live view of a run on a terminal: `--events human`.
///
/// At the bottom of the screen, a line per executing task with its elapsed time (and a bar for
/// `task.progress` with a known total), then a `done/total` counter (with an ETA, and the tasks
/// waiting for a slot and the full queue that holds them: `QueueOccupancy`). Above it, as they happen:
/// each task's output lines, prefixed with its id (padded to one width and coloured per task:
/// `TaskPrefixes`; the task's own colours kept), and one line per retry and per final state
/// (`✓ build 1.2s`, `✗ test failed: exited with status 2`); these scroll away as usual. When
/// the run is over, `finish()` replaces the live area with a summary table (task, result,
/// duration, attempts; above 50 tasks only the failures and the slowest, unless `--summary
/// all`), the reasons of the failures and the workflow's final line.
///
/// `receive` only records the event (see `LiveView`): a run of 10,000 quick tasks must not wait
/// on the terminal. A timer draws at most `refreshInterval` apart, on a queue of its own: it
/// moves the cursor up over the last live area (`ESC[nA`), clears to the end of the screen
/// (`ESC[J`), and writes the new lines above it and the new live area, all in one write. Live
/// lines are cut to the terminal's width (asked at each frame, so a resize is followed), so that
/// the number of lines to move up over is the number written. The cursor is hidden while the
/// view is live and shown again by `finish()`.
///
/// - Warning: `view` is shared by `receive` (called by the bus) and the drawing (`queue`), behind
///   a `LockedState`; the lock is held to record an event or to take a frame's notes, never
///   while writing. `screen` is used only on `queue`; its lock is never contended.
package final class LiveConsole: EventSink {
    /// The default time between two frames: ten a second.
    package static let defaultRefreshInterval = DispatchTimeInterval.milliseconds(100)

    private let writer: DescriptorWriter
    private let style: Style
    private let size: @Sendable () -> (columns: Int, rows: Int)
    private let clock: @Sendable () -> Int64
    private let refreshInterval: DispatchTimeInterval
    private let pauseHint: PauseHint?
    private let queue = DispatchQueue(label: "flowrun.console")
    private let view: LockedState<LiveView>
    private let screen = LockedState(Screen())

    /// What is on the terminal; used only on `queue`.
    private struct Screen {
        var timer: (any DispatchSourceTimer)?
        /// The lines of the live area on screen, which the next frame moves up over.
        var liveLines: [String] = []
        var cursorHidden = false
        var finished = false
    }

    /// - Parameters:
    ///   - size: the terminal's columns and rows, asked at each frame.
    ///   - clock: milliseconds since 1970, as events carry them, for the elapsed times.
    ///   - refreshInterval: the time between two frames; `.never` draws nothing until `finish()`.
    ///   - layout: the run's queues and task ids, for the waiting count and the prefix width.
    ///   - summary: how many rows the end summary has.
    ///   - commands: `-v`: each task's command, shown as it starts, and a line for each task kept.
    ///   - pauseHint: how to pause, said under the first line.
    package init(
        writer: DescriptorWriter, style: Style,
        size: @escaping @Sendable () -> (columns: Int, rows: Int),
        clock: @escaping @Sendable () -> Int64 = LiveConsole.wallClock,
        refreshInterval: DispatchTimeInterval = LiveConsole.defaultRefreshInterval,
        layout: RunLayout = RunLayout(), summary: SummaryMode = .auto, commands: TaskCommands? = nil,
        pauseHint: PauseHint? = nil
    ) {
        self.writer = writer
        self.style = style
        self.size = size
        self.clock = clock
        self.refreshInterval = refreshInterval
        self.pauseHint = pauseHint
        self.view = LockedState(LiveView(style: style, layout: layout, summaryMode: summary, commands: commands, pauseHint: pauseHint))
    }

    /// Draws on the terminal on `descriptor` (such as `STDOUT_FILENO`), 80 by 24 if it does not tell its size.
    package convenience init(descriptor: Int32, style: Style) {
        self.init(
            writer: DescriptorWriter(descriptor: descriptor), style: style,
            size: { Terminal.size(of: descriptor) ?? (80, 24) })
    }

    deinit {
        screen.withLock { $0.timer?.cancel() }
    }

    package func receive(_ event: RunEvent) {
        let first = view.withLock { view in
            view.record(event)
            return view.recorded == 1
        }
        if first && refreshInterval != .never { queue.async { self.startTimer() } }
    }

    package var writeFailure: WriteFailure? { writer.failure }

    /// Stops the timer, replaces the live area with the summary and shows the cursor again.
    package func finish() {
        queue.sync {
            let now = clock()
            let columns = size().columns
            let (notes, summary, prefixes) = view.withLock { view in
                (view.takeNotes(), view.summary(now: now, columns: columns), view.prefixes)
            }
            let text = LiveView.render(notes, style: style, prefixes: prefixes, pauseHint: pauseHint) + summary
            screen.withLock { screen in
                screen.timer?.cancel()
                screen.timer = nil
                screen.finished = true
                var output = Self.erase(screen.liveLines) + text
                if screen.cursorHidden { output += "\u{1B}[?25h" }
                screen.liveLines = []
                screen.cursorHidden = false
                writer.write(output)
            }
        }
    }

    /// flowrun was stopped (Ctrl-Z) and continued: meanwhile the cursor was shown and the shell
    /// wrote below the live area. The next frame draws a new live area below (the last one
    /// stays above, as it was when flowrun stopped) and hides the cursor again.
    package func continuedAfterStop() {
        queue.async {
            self.screen.withLock { screen in
                screen.liveLines = []
                screen.cursorHidden = false
            }
        }
    }

    /// Milliseconds since 1970 from the system's real-time clock.
    @Sendable package static func wallClock() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    // MARK: Drawing (on `queue`)

    private func startTimer() {
        screen.withLock { screen in
            guard screen.timer == nil, !screen.finished else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + refreshInterval, repeating: refreshInterval, leeway: .milliseconds(10))
            timer.setEventHandler { [weak self] in self?.drawFrame() }
            timer.resume()
            screen.timer = timer
        }
    }

    /// Draws one frame: the new notes above, then the live area; nothing if neither changed.
    /// Internal so that tests can draw a frame without waiting for the timer.
    func drawFrame() {
        let now = clock()
        let (columns, rows) = size()
        let (notes, live, prefixes) = view.withLock { view in
            (view.takeNotes(), view.liveLines(now: now, columns: columns, rows: rows), view.prefixes)
        }
        let above = LiveView.render(notes, style: style, prefixes: prefixes, pauseHint: pauseHint)
        screen.withLock { screen in
            guard !screen.finished, !above.isEmpty || live != screen.liveLines else { return }
            var output = ""
            if !screen.cursorHidden {
                output += "\u{1B}[?25l"
                screen.cursorHidden = true
            }
            output += Self.erase(screen.liveLines)
            output += above
            for line in live { output += line + "\n" }
            screen.liveLines = live
            writer.write(output)
        }
    }

    /// Moves the cursor from just below the live area to its first line and clears to the end of the screen.
    private static func erase(_ liveLines: [String]) -> String {
        liveLines.isEmpty ? "" : "\r\u{1B}[\(liveLines.count)A\u{1B}[J"
    }
}
