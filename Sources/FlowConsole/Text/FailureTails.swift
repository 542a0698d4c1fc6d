import FlowModel

/// The failed tasks of a run with the last lines of their output, for the end of a plain or
/// GitHub Actions log, where a reader looks first, and for the live view's summary. Allowed
/// failures (`continue_on_error`) come after the failures, under a heading of their own, so that
/// none is read as a task that failed the run:
///
/// ```
/// failed tasks, with the last lines of their output:
/// [build] failed in 3.1s: exited with status 2
/// [build] | cc -c main.c
/// [build] ! main.c:3: error: expected ';'
/// allowed failures (continue_on_error), with the last lines of their output:
/// [lint] allowed failure in 0.2s: exited with status 1 (continue_on_error)
/// [lint] ! E501 line too long
/// ```
///
/// Memory stays bounded: each running task keeps only its last `lines` lines (of its latest
/// attempt, each cut to `maximumLineLength`), and only the first `failuresWithLines` failures
/// keep theirs; later ones are named with their reason alone.
struct FailureTails {
    /// How many of a failed task's last output lines are shown.
    static let lines = 10
    /// Longer output lines are cut, so that a tail stays a readable size.
    static let maximumLineLength = 500
    /// Past this many failures, a failure is named without its lines.
    static let failuresWithLines = 20

    private var running: [TaskID: Tail] = [:]
    /// The failures in the order they happened: the plain log's line for each, then its tail.
    private var failures: [(task: TaskID, allowed: Bool, line: [UInt8], tail: Tail?)] = []

    /// The latest output lines of one task, oldest first once `lines.count` reaches the limit at `next`.
    private struct Tail {
        var lines: [(stream: OutputStream, text: String)] = []
        var next = 0

        mutating func append(_ stream: OutputStream, _ text: String) {
            // The byte count first: it is O(1), and this runs for every output line of the run.
            let limit = FailureTails.maximumLineLength
            let text = text.utf8.count > limit && text.count > limit ? String(text.prefix(limit)) + "…" : text
            if lines.count < FailureTails.lines {
                lines.append((stream, text))
            } else {
                lines[next] = (stream, text)
                next = (next + 1) % FailureTails.lines
            }
        }

        var inOrder: ArraySlice<(stream: OutputStream, text: String)> { lines[next...] + lines[..<next] }
    }

    mutating func record(_ event: RunEvent) {
        switch event.kind {
        case .taskStarted(let task, _, _):
            // A new attempt: the lines of the one that failed are not its own. A task's tail is
            // made at its first line, so a task that prints nothing costs no hashing of its id.
            if !running.isEmpty { running[task] = nil }
        case .taskOutput(let task, let stream, let line):
            running[task, default: Tail()].append(stream, line)
        case .taskFailed(let task, _, _, _, _, let allowed):
            var line: [UInt8] = []
            PlainLog.appendLine(for: event, to: &line)
            let tail = running.removeValue(forKey: task)
            failures.append((task, allowed, line, failures.count < Self.failuresWithLines ? tail ?? Tail() : nil))
        case .taskSucceeded(let task, _, _), .taskCancelled(let task, _), .taskSkipped(let task, _, _):
            if !running.isEmpty { running[task] = nil }
        default:
            break
        }
    }

    /// The last output lines of `task`'s failure, oldest first; none for a task that did not fail
    /// or failed past `failuresWithLines`.
    func lines(of task: TaskID) -> [(stream: OutputStream, text: String)] {
        // Only the first failures keep lines: a summary of thousands of failures looks at those.
        guard let tail = failures.prefix(Self.failuresWithLines).first(where: { $0.task == task })?.tail else { return [] }
        return Array(tail.inOrder)
    }

    /// Appends the failures and their lines, then the allowed failures and theirs, each under
    /// its heading if there were any.
    func appendSection(to text: inout [UInt8]) {
        appendSection("failed tasks, with the last lines of their output:\n", allowed: false, to: &text)
        appendSection("allowed failures (continue_on_error), with the last lines of their output:\n", allowed: true, to: &text)
    }

    private func appendSection(_ heading: String, allowed: Bool, to text: inout [UInt8]) {
        let listed = failures.filter { $0.allowed == allowed }
        guard !listed.isEmpty else { return }
        text += heading.utf8
        for (task, _, line, tail) in listed {
            text += line
            for (stream, output) in tail?.inOrder ?? [] { PlainLog.appendOutput(task: task, stream: stream, line: output, to: &text) }
        }
    }
}
