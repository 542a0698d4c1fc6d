import FlowEvents
import FlowModel
import Foundation

/// Writes one line per event, without ANSI codes: `--events plain`, for CI and pipes.
///
/// ```
/// workflow upgrade: 3 tasks, concurrency 2
/// [fetch] started (shell)
/// [fetch] | downloading index
/// [fetch] ! warning: slow mirror
/// [fetch] retrying in 1.2s: exited with status 1 (attempt 1 failed)
/// [fetch] succeeded in 1.3s after 2 attempts
/// [build] failed in 3.1s: exited with status 2
/// [test] skipped: needs 'build', which did not succeed
/// failed tasks, with the last lines of their output:
/// [build] failed in 3.1s: exited with status 2
/// [build] ! main.c:3: error: expected ';'
/// workflow upgrade failed in 4.6s: 1 succeeded, 1 failed, 1 skipped
/// ```
///
/// Every line that belongs to a task starts with `[TASK]`, so that the lines of concurrent
/// tasks stay readable when they interleave (and `grep '^\[fetch\]'` untangles them); output
/// lines are marked `|` (stdout) or `!` (stderr). `task.ready` and `task.progress` are not shown:
/// a CI log keeps the lines that say something (JSON Lines carries the progress). Text from tasks
/// passes through `ConsoleText`, so that no escape sequence of theirs reaches the log either.
/// A failure of a `continue_on_error` task is an `allowed failure`, not `failed`. Before the
/// last line, `FailureTails` names each failed task again with its last lines of output (the
/// allowed failures under a heading of their own).
///
/// Under GitHub Actions (`githubActions: true`), each task that starts gets a `::group::` fold
/// of its own. Groups cannot nest or interleave, so a task's lines are held until it ends and
/// then written as one block: the group (started line, output and retries), then,
/// outside the fold so that it shows when folded, its final line, and for a failure an
/// `::error` annotation (`::warning` for an allowed failure). Inside the fold the task's output
/// goes out without `[TASK] |`, so that a tool's own workflow commands work as in a step of
/// their own; flowrun's lines keep the prefix. Past `groupBufferBytes` a task's lines wait in an unlinked temporary
/// file (`SpillFile`, in `$TMPDIR`) rather than in memory, and are copied out in chunks when
/// it ends, so memory stays bounded and the group stays whole. If that file cannot be written,
/// an `::error` says so and the group is written in parts (the later ones titled
/// `TASK (continued)`): nothing is lost.
///
/// With `-v/--verbose` (`commands`), each task that starts has its command echoed under its
/// started line (`[build] $ make all`, `TaskCommands`), and each task kept has a line of its
/// own (`[lint] up to date`, `[fetch] done before (run ID)`) as well as the count.
///
/// Lines go out in batches (`BatchedWriter`): at most 50 ms after they happen, or at once
/// when 64 KiB are waiting, and at the end of the run.
///
/// - Warning: the state is behind a `LockedState`; the bus never calls `receive` twice at once anyway.
package final class PlainLog: EventSink {
    /// How much of one task's lines is held in memory, under GitHub Actions; the rest waits in
    /// a `SpillFile`.
    package static let groupBufferBytes = 64 << 10

    private let output: BatchedWriter
    private let githubActions: Bool
    /// Each task's command, echoed when it starts (`-v`); nil for none.
    private let commands: TaskCommands?
    /// Where spill files are made.
    private let temporaryFolder: String
    /// flowrun's own `::stop-commands::` token, under GitHub Actions (`GitHubCommandLine`).
    private let stopToken: String
    private let state = LockedState(State())

    private struct State {
        /// The lines held for each task's fold, under GitHub Actions.
        var groups: [TaskID: Group] = [:]
        /// The failures and their last lines, written before the last line of the run.
        var tails = FailureTails()
        /// Tasks skipped as up to date: one line for them all, before the last line of the run.
        var upToDate = 0
        /// Tasks skipped as done in the run resumed, and that run: one line for them all too.
        var doneBefore = 0
        var resumedRun: String?
        /// The lines of a batch of events, kept between batches: its capacity stays, where a
        /// new array a batch grew two or three times (a few allocations a task).
        var text: [UInt8] = []
    }

    private struct Group {
        var title: String
        /// The latest lines, about `groupBufferBytes` at most.
        var lines: [UInt8] = []
        /// The lines before those, once there were more than the buffer holds.
        var spill: SpillFile?
        /// Set when the spill file failed: the group is then written in parts.
        var inParts = false
        /// The token of the task's own `::stop-commands::`, while the runner reads no commands
        /// in its output; flowrun resumes them before the group ends.
        var stoppedBy: String?
    }

    /// - Parameter temporaryFolder: where a GitHub Actions group past `groupBufferBytes` waits
    ///   (`$TMPDIR`, else `/tmp`, by default).
    /// - Parameter commands: `-v`: the commands to echo, and a line for each task kept.
    /// - Parameter flushTimer: when held lines are written (`BatchedWriter`); a timer of its own by default.
    package init(
        writer: DescriptorWriter, githubActions: Bool = false, temporaryFolder: String? = nil, commands: TaskCommands? = nil,
        flushTimer: (any FlushTimer)? = nil, stopToken: String? = nil
    ) {
        self.stopToken = stopToken ?? GitHubCommandLine.freshToken()
        self.output = BatchedWriter(writer, timer: flushTimer)
        self.githubActions = githubActions
        self.commands = commands
        self.temporaryFolder = temporaryFolder ?? SpillFile.defaultFolder()
    }

    /// Writes to `descriptor` (such as `STDOUT_FILENO`), which the caller keeps open.
    package convenience init(descriptor: Int32, githubActions: Bool = false) {
        self.init(writer: DescriptorWriter(descriptor: descriptor), githubActions: githubActions)
    }

    /// Whether the environment is a GitHub Actions runner (`GITHUB_ACTIONS=true`).
    package static func isGitHubActions(_ environment: [String: String]) -> Bool {
        environment["GITHUB_ACTIONS"] == "true"
    }

    package func receive(_ event: RunEvent) {
        receive([event])
    }

    /// Holds the lines of `events` for the next batch.
    package func receive(_ events: [RunEvent]) {
        // Written under the lock, so that lines keep the order of the events even if a caller
        // broke the one-at-a-time contract; the lock is never contended otherwise.
        state.withLock { state in
            // Taken out of `state` while it is filled, as `append` has `state` too.
            var text: [UInt8] = []
            swap(&text, &state.text)
            text.removeAll(keepingCapacity: true)
            for event in events { append(event, to: &text, state: &state) }
            output.write(text)
            // A flood of output's batch does not keep its memory for the rest of the run.
            if text.capacity <= Self.keptTextCapacity { swap(&text, &state.text) }
        }
    }

    /// The most a batch's lines keep between batches (`State.text`).
    static let keptTextCapacity = 1 << 20

    private func append(_ event: RunEvent, to text: inout [UInt8], state: inout State) {
        switch event.kind {
        case .taskProgress: return
        case .taskSkipped(let task, let reason, _) where reason == SkipReason.upToDate:
            state.upToDate += 1
            if commands != nil { Self.appendKept(task, "up to date", to: &text) }
            return
        case .taskSkipped(let task, let reason, let run) where reason == SkipReason.doneBefore:
            state.doneBefore += 1
            state.resumedRun = run
            if commands != nil { Self.appendKept(task, "done before" + (run.map { " (run \(ConsoleText.sanitized($0)))" } ?? ""), to: &text) }
            return
        default: break
        }
        state.tails.record(event)
        if case .workflowFinished(_, _, _, let counts) = event.kind {
            // A record of a run in which no task ran keeps the count, not each task's skip.
            state.upToDate = max(state.upToDate, counts.upToDate)
            Self.appendDoneBefore(&state, to: &text)
            Self.appendUpToDate(&state.upToDate, to: &text)
            appendOwn({ state.tails.appendSection(to: &$0) }, to: &text)
        }
        guard githubActions, let task = event.task else {
            appendOwn({ Self.appendLine(for: event, to: &$0) }, to: &text)
            appendCommand(of: event, to: &text)
            return
        }
        github(event, task: task, to: &text, groups: &state.groups)
    }

    package var writeFailure: WriteFailure? { output.failure }

    /// Writes any fold still held (every task has a final event, so this is for a run that
    /// broke off), and every line held for the next batch.
    package func finish() {
        state.withLock { state in
            var text: [UInt8] = []
            Self.appendDoneBefore(&state, to: &text)
            Self.appendUpToDate(&state.upToDate, to: &text)
            for task in state.groups.keys.sorted() {
                guard var group = state.groups.removeValue(forKey: task) else { continue }
                appendFold(&group, to: &text)
            }
            output.write(text)
            output.finish()
        }
    }

    /// The line of `event` without its newline, or nil for an event the log does not show.
    package static func line(for event: RunEvent) -> String? {
        var bytes: [UInt8] = []
        appendLine(for: event, to: &bytes)
        guard bytes.popLast() != nil else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the line of `event` and its newline to `text`; nothing for an event the log does
    /// not show. The lines of every task (started, output, succeeded) are appended piece by
    /// piece: string interpolation allocates per piece, and a run logs several lines per task.
    static func appendLine(for event: RunEvent, to text: inout [UInt8]) {
        switch event.kind {
        case .taskReady:
            return
        case .taskStarted(let task, let attempt, let kind):
            appendPrefix(task, to: &text)
            append("started (", to: &text)
            text += kind.utf8
            if attempt > 1 {
                append(", attempt ", to: &text)
                JSONObjectWriter.appendInteger(Int64(attempt), to: &text)
            }
            append(")\n", to: &text)
        case .taskOutput(let task, let stream, let line):
            appendOutput(task: task, stream: stream, line: line, to: &text)
        case .taskSucceeded(let task, let attempts, let duration):
            appendPrefix(task, to: &text)
            append("succeeded in ", to: &text)
            DurationText.append(milliseconds: duration, to: &text)
            if attempts > 1 {
                append(" after ", to: &text)
                JSONObjectWriter.appendInteger(Int64(attempts), to: &text)
                append(" attempts", to: &text)
            }
            text.append(UInt8(ascii: "\n"))
        default:
            text += otherLine(for: event).utf8
            text.append(UInt8(ascii: "\n"))
        }
    }

    /// `[TASK] | LINE` (stdout) or `[TASK] ! LINE` (stderr), and its newline.
    static func appendOutput(task: TaskID, stream: FlowModel.OutputStream, line: String, to text: inout [UInt8]) {
        appendPrefix(task, to: &text)
        text.append(stream == .stdout ? UInt8(ascii: "|") : UInt8(ascii: "!"))
        let sanitized = ConsoleText.sanitized(line)
        if !sanitized.isEmpty {
            text.append(UInt8(ascii: " "))
            text += sanitized.utf8
        }
        text.append(UInt8(ascii: "\n"))
    }

    /// With `-v`, after a task's first `started` line: its command, a line each (`[build] $ make`).
    private func appendCommand(of event: RunEvent, to text: inout [UInt8]) {
        guard let commands, case .taskStarted(let task, 1, _) = event.kind else { return }
        for line in commands.lines(of: task) {
            Self.appendPrefix(task, to: &text)
            text += line.utf8
            text.append(UInt8(ascii: "\n"))
        }
    }

    /// With `-v`: `[lint] up to date`, a line for a task kept, as go-task's `Task "lint" is up to date`.
    private static func appendKept(_ task: TaskID, _ how: String, to text: inout [UInt8]) {
        appendPrefix(task, to: &text)
        text += how.utf8
        text.append(UInt8(ascii: "\n"))
    }

    /// `12 tasks up to date`, for the tasks counted in `count`; then none are.
    private static func appendUpToDate(_ count: inout Int, to text: inout [UInt8]) {
        guard count > 0 else { return }
        text += SummaryText.upToDate(count).utf8
        text.append(UInt8(ascii: "\n"))
        count = 0
    }

    /// `5 tasks done before (run ID)`, for the tasks `--resume` kept; then none are.
    private static func appendDoneBefore(_ state: inout State, to text: inout [UInt8]) {
        guard state.doneBefore > 0 else { return }
        text += SummaryText.doneBefore(state.doneBefore, run: state.resumedRun).utf8
        text.append(UInt8(ascii: "\n"))
        state.doneBefore = 0
    }

    /// `[TASK] `, which starts every line of a task.
    private static func appendPrefix(_ task: TaskID, to text: inout [UInt8]) {
        text.append(UInt8(ascii: "["))
        text += task.utf8
        append("] ", to: &text)
    }

    /// A literal's bytes in one copy: `+= "...".utf8` goes through the string's view, a few
    /// hundred instructions a piece, and a task's two lines have five pieces (issue 23).
    private static func append(_ literal: StaticString, to text: inout [UInt8]) {
        literal.withUTF8Buffer { text.append(contentsOf: $0) }
    }

    /// The lines of the less frequent events.
    private static func otherLine(for event: RunEvent) -> String {
        switch event.kind {
        case .workflowStarted(let workflow, _, let tasks, let concurrency):
            return SummaryText.started(workflow: workflow, tasks: tasks, concurrency: concurrency)
        case .taskProgress(let task, let done, let total, let unit):
            return "[\(task)] \(ProgressText.string(done: done, total: total, unit: unit))"
        case .taskRetrying(let task, let attempt, let delay, let reason, _):
            let delayText = DurationText.string(milliseconds: delay)
            return "[\(task)] retrying in \(delayText): \(ConsoleText.sanitized(reason)) (attempt \(attempt) failed)"
        case .taskFailed(let task, let attempts, let duration, let reason, _, let allowed):
            let after = attempts > 1 ? " after \(attempts) attempts" : ""
            let what = allowed ? "allowed failure" : "failed"
            let why = allowed ? " (continue_on_error)" : ""
            return "[\(task)] \(what)\(after) in \(DurationText.string(milliseconds: duration)): \(ConsoleText.sanitized(reason))\(why)"
        case .taskCancelled(let task, let reason):
            return "[\(task)] cancelled: \(ConsoleText.sanitized(reason))"
        case .taskSkipped(let task, let reason, _):
            return "[\(task)] skipped: \(ConsoleText.sanitized(reason))"
        case .queueSuspended:
            return "queue suspended"
        case .queueResumed:
            return "queue resumed"
        case .workflowCleanup(let reason, let tasks):
            return CleanupText.line(reason: reason, tasks: tasks)
        case .workflowFinished(let workflow, let status, let duration, let counts):
            return SummaryText.finished(workflow: workflow, status: status, durationMilliseconds: duration, counts: counts)
        case .taskReady, .taskStarted, .taskOutput, .taskSucceeded:
            preconditionFailure("appended by appendLine(for:to:)")
        }
    }

    private static func isFinal(_ kind: RunEvent.Kind) -> Bool {
        switch kind {
        case .taskSucceeded, .taskFailed, .taskCancelled, .taskSkipped: true
        default: false
        }
    }

    /// Under GitHub Actions: holds the line in the task's fold, or writes the fold if the task ended.
    private func github(_ event: RunEvent, task: TaskID, to text: inout [UInt8], groups: inout [TaskID: Group]) {
        switch event.kind {
        case .taskStarted, .taskOutput, .taskProgress, .taskRetrying:
            // Taken out and put back, so that the buffer is never shared and never copied.
            var group = groups.removeValue(forKey: task) ?? Group(title: task)
            if case .taskOutput(_, _, let line) = event.kind {
                appendUnprefixed(line, to: &group)
            } else {
                appendOwn(
                    {
                        Self.appendLine(for: event, to: &$0)
                        appendCommand(of: event, to: &$0)
                    }, to: &group.lines)
            }
            if group.lines.count >= Self.groupBufferBytes { spill(&group, task: task, text: &text) }
            groups[task] = group
        case .taskSucceeded, .taskFailed, .taskCancelled, .taskSkipped:
            if var group = groups.removeValue(forKey: task) { appendFold(&group, to: &text) }
            appendOwn({ Self.appendLine(for: event, to: &$0) }, to: &text)
            if case .taskFailed(_, _, _, let reason, _, let allowed) = event.kind {
                // An allowed failure warns, as a `continue-on-error` step's failure does. The bare
                // form (`::error::`), with the task in the message, is what the contract names.
                let command = allowed ? "warning" : "error"
                let message = allowed ? "\(task) failed (allowed by continue_on_error): \(reason)" : "\(task) failed: \(reason)"
                text += "::\(command)::\(Self.escapeData(message))\n".utf8
            }
        default:
            appendOwn({ Self.appendLine(for: event, to: &$0) }, to: &text)
        }
    }

    /// flowrun's own lines, made by `make`: as they are, except that under GitHub Actions a line
    /// that quotes a task's text (a reason, a command, an output line in the failure summary)
    /// and so reads as a workflow command (`##[error]`, `::endgroup::`) is written as text.
    private func appendOwn(_ make: (inout [UInt8]) -> Void, to text: inout [UInt8]) {
        guard githubActions else { return make(&text) }
        var lines: [UInt8] = []
        make(&lines)
        GitHubCommandLine.appendLinesAsText(lines, token: stopToken, to: &text)
    }

    /// A task's output line inside its fold: as the task wrote it (less escape sequences), with
    /// no `[TASK] |`, so that a tool's own workflow commands (`::error file=...::`,
    /// `::add-mask::`) reach the runner as they would from a step of their own. Only the
    /// commands that would break flowrun's fold go out as text: `::group::` and `::endgroup::`
    /// (folds cannot nest), and a `::stop-commands::` that flowrun could not resume. After a
    /// task's own `::stop-commands::TOKEN`, its lines are text to the runner until `::TOKEN::`,
    /// which flowrun writes itself if the task did not (`appendFold`).
    private func appendUnprefixed(_ line: String, to group: inout Group) {
        let text = ConsoleText.sanitized(line)
        if let stoppedBy = group.stoppedBy {
            if GitHubCommandLine.command(in: text, stopToken: stoppedBy) != nil { group.stoppedBy = nil }
        } else if let command = GitHubCommandLine.command(in: text) {
            switch command.name {
            case "group", "endgroup":
                return GitHubCommandLine.appendAsText(text.utf8, token: stopToken, to: &group.lines)
            case "stop-commands":
                guard GitHubCommandLine.isResumable(command.data) else {
                    return GitHubCommandLine.appendAsText(text.utf8, token: stopToken, to: &group.lines)
                }
                group.stoppedBy = String(command.data)
            default:
                break
            }
        }
        group.lines += text.utf8
        group.lines.append(UInt8(ascii: "\n"))
    }

    /// Moves the buffer of a group to its spill file; if the file cannot be written, says so
    /// and writes the group so far as a part of its own instead.
    private func spill(_ group: inout Group, task: TaskID, text: inout [UInt8]) {
        if !group.inParts {
            do throws(SpillFile.Failure) {
                if group.spill == nil { group.spill = try SpillFile(in: temporaryFolder) }
                let file = group.spill!
                try file.append(group.lines)
                group.lines.removeAll(keepingCapacity: true)
                return
            } catch {
                text +=
                    "::error::\(Self.escapeData("flowrun: cannot hold the output of task '\(task)' in \(error); its group is written in parts"))\n".utf8
                group.inParts = true
            }
        }
        let stoppedBy = group.stoppedBy
        appendFold(&group, to: &text)
        group = Group(title: "\(task) (continued)", inParts: true, stoppedBy: stoppedBy)
        // The task's commands were resumed to end the part: stopped again for the next.
        if let stoppedBy { group.lines += "::stop-commands::\(stoppedBy)\n".utf8 }
    }

    /// Appends the fold of `group` to `text`; the lines in its spill file are written first,
    /// after what `text` held, in chunks.
    private func appendFold(_ group: inout Group, to text: inout [UInt8]) {
        text += "::group::".utf8
        text += group.title.utf8
        text.append(UInt8(ascii: "\n"))
        if let spill = group.spill {
            output.write(text)
            text.removeAll(keepingCapacity: true)
            do throws(SpillFile.Failure) {
                try spill.copy { output.write($0) }
            } catch {
                text +=
                    "::error::\(Self.escapeData("flowrun: cannot read back the output of task '\(group.title)' from \(error); \(spill.count.counted("byte")) of it are lost"))\n"
                    .utf8
            }
            group.spill = nil
        }
        text += group.lines
        if let stoppedBy = group.stoppedBy { text += "::\(stoppedBy)::\n".utf8 }
        text += "::endgroup::\n".utf8
    }

    /// A workflow command's message: `%`, `\r` and `\n` percent-encoded, as the runner decodes them.
    static func escapeData(_ text: String) -> String {
        percentEncoded(ConsoleText.sanitized(text.replacingOccurrences(of: "\r\n", with: "\n"), newlines: .keep), property: false)
    }

    /// A workflow command's property value (a file's path): `%`, `\r`, `\n`, `:` and `,`
    /// percent-encoded, and nothing dropped, so that the runner reads back the very path.
    static func escapeProperty(_ text: String) -> String {
        percentEncoded(text, property: true)
    }

    /// `text` with `%`, `\r` and `\n` percent-encoded, and for a `property` `:` and `,` too.
    private static func percentEncoded(_ text: String, property: Bool) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": escaped += "%25"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            case ":" where property: escaped += "%3A"
            case "," where property: escaped += "%2C"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
