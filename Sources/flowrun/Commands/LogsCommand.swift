import ArgumentParser
import FlowConsole
import FlowEvents
import FlowModel
import FlowState
import Foundation

/// `flowrun logs [RUN] [TASK...]`: a past run as the console showed it, or a task's output.
struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "Show a recorded run's events as the console showed them, or a task's output.",
        discussion: """
            RUN is a run id from `flowrun runs` (or a unique start of one, or `last`); it defaults \
            to the last run. With TASK, prints that task's output lines only (each line prefixed \
            with [TASK] when several tasks are named). Records are read from .flowrun/ of the \
            current folder (or $FLOWRUN_STATE_DIR; when it has none, beside the flowrun.yaml \
            found above it), or beside --file.
            """
    )

    @Argument(
        help: ArgumentHelp("The run (default: the last), then the tasks whose output to show.", valueName: "RUN] [TASK..."),
        completion: LogsCompletion.runOrTask)
    var arguments: [String] = []

    @Option(name: [.short, .long], help: ArgumentHelp("Only the runs of this workflow file (its state folder).", valueName: "FILE"))
    var file: String?

    @Option(help: ArgumentHelp("How to show the run: plain (default) or jsonl.", valueName: "MODE"))
    var events: EventsMode = .plain

    func validate() throws {
        if events == .human { throw ValidationError("logs shows --events plain or jsonl") }
    }

    func run() throws {
        let recorded = RecordedRuns(file: file)
        let (records, newer) = recorded.records()
        var tasks = arguments
        let record: RunRecord
        if let first = arguments.first, let named = try Self.find(first, in: records) {
            record = named
            tasks.removeFirst()
        } else if let first = arguments.first, let newer = newer.first(where: { $0.run.hasPrefix(first) }) {
            throw CommandFailure(newer.problem.description)
        } else if let last = records.first {
            // The last run is one this flowrun cannot read: refused rather than an older one shown.
            if let newest = newer.map(\.run).max(), newest > last.run { throw CommandFailure(newer.first { $0.run == newest }!.problem.description) }
            record = last
        } else {
            if let newest = newer.first { throw CommandFailure(newest.problem.description) }
            throw CommandFailure(recorded.none)
        }
        let planned = Set(record.plan().map(\.task))
        if !tasks.isEmpty, planned.isEmpty, record.header.taskCount > 0 {
            throw CommandFailure("run \(record.run) kept no task's events: no task ran in it")
        }
        if let unknown = tasks.first(where: { !planned.contains($0) }) {
            throw CommandFailure("run \(record.run) has no task '\(unknown)'")
        }
        let standardOutput = DescriptorWriter(descriptor: STDOUT_FILENO)
        let (unreadable, finished) = try show(record, tasks: Set(tasks), to: standardOutput)
        if unreadable > 0 {
            RecordOptions.warn("\(unreadable) line(s) of the run record \(record.path) could not be read and were skipped")
        }
        if !finished, events == .plain, tasks.isEmpty {
            if let pid = recorded.recordingProcess(of: record) {
                standardOutput.write("run \(record.run) is still running (flowrun pid \(pid)): its record ends here for now\n")
            } else {
                standardOutput.write("run \(record.run) was interrupted: its record ends here\n")
            }
        }
        if let failure = standardOutput.failure { throw CommandFailure("\(failure)", status: ExitStatus.forCommandWriteFailure(failure)) }
    }

    /// Writes the record's events (or the tasks' output); returns the unreadable lines and
    /// whether the record has its end.
    private func show(_ record: RunRecord, tasks: Set<TaskID>, to output: DescriptorWriter) throws -> (Int, Bool) {
        var finished = false
        var sink: (any EventSink)?
        if events == .jsonl {
            sink = JSONLinesSink(writer: output)
        } else if tasks.isEmpty {
            sink = PlainLog(writer: output)
        }
        let unreadable = try record.forEachEvent { event in
            if case .workflowFinished = event.kind { finished = true }
            if !tasks.isEmpty {
                guard let task = event.task, tasks.contains(task) else { return }
                if let sink { return sink.receive(event) }
                guard case .taskOutput(_, _, let line) = event.kind else { return }
                output.write((tasks.count > 1 ? "[\(task)] " : "") + ConsoleText.sanitized(line) + "\n")
            } else {
                sink?.receive(event)
            }
        }
        sink?.finish()
        return (unreadable, finished)
    }

    /// The run named `name`: its id, a unique start of one, or `last`. Nil if none matches.
    static func find(_ name: String, in records: [RunRecord]) throws -> RunRecord? {
        if name == "last" { return records.first }
        if let exact = records.first(where: { $0.run == name }) { return exact }
        let matches = records.filter { $0.run.hasPrefix(name) }
        guard matches.count <= 1 else {
            throw CommandFailure("'\(name)' names \(matches.count) runs (\(matches.prefix(3).map(\.run).joined(separator: ", ")), ...): give more of the id")
        }
        return matches.first
    }
}
