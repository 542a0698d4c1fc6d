import ArgumentParser
import FlowConsole
import FlowEvents
import FlowModel
import FlowReport
import FlowState
import Foundation

/// `flowrun report [RUN] [--html PATH] [--trace PATH] [--markdown PATH]`: a recorded run as an
/// HTML timeline, a Chrome trace, or the Markdown of GitHub's job summary.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Draw a recorded run: an HTML timeline, a Chrome trace (Perfetto), or a Markdown summary.",
        discussion: """
            RUN is a run id from `flowrun runs` (or a unique start of one, or `last`); it defaults \
            to the last run. With no --html, --trace or --markdown, writes the timeline to \
            flowrun-report-RUN.html in the current folder. PATH - writes to standard output. \
            Records are read as `flowrun logs` reads them: from .flowrun/ of the current folder \
            (or $FLOWRUN_STATE_DIR), or beside --file. A run another flowrun is still recording \
            is drawn as running, up to now.
            """
    )

    @Argument(help: ArgumentHelp("The run (default: the last).", valueName: "RUN"))
    var runName: String?

    @Option(name: [.short, .long], help: ArgumentHelp("Only the runs of this workflow file (its state folder).", valueName: "FILE"))
    var file: String?

    @Option(help: ArgumentHelp("Write the HTML timeline (one self-contained file) here.", valueName: "PATH"), completion: .file())
    var html: String?

    @Option(help: ArgumentHelp("Write a Chrome trace event file (JSON; Perfetto, chrome://tracing) here.", valueName: "PATH"), completion: .file())
    var trace: String?

    @Option(help: ArgumentHelp("Write the Markdown summary (as GitHub's job summary gets it) here.", valueName: "PATH"), completion: .file())
    var markdown: String?

    func run() throws {
        let recorded = RecordedRuns(file: file)
        let record = try Self.record(named: runName, in: recorded)
        // A run another flowrun is still recording is drawn as running (as `runs` lists it), not interrupted.
        let now = recorded.isRunning(record) ? Int64(Date().timeIntervalSince1970 * 1000) : nil
        // As `run` refuses them: a report over the run's workflow file, or two at one path.
        try OutputPaths.refuseOverlaps(
            workflow: record.header.file, eventsFile: nil, junit: nil,
            others: [("--html", html), ("--trace", trace), ("--markdown", markdown)].filter { $0.1 != "-" })
        // Before any is written: one into a missing folder leaves none half-done beside it.
        try OutputPaths.refuseUnwritable([html, trace, markdown].compactMap { $0 }.filter { $0 != "-" })
        let (timeline, unreadable) = try RunTimeline.read(record, runningAt: now)
        if unreadable > 0 {
            RecordOptions.warn("\(unreadable) line(s) of the run record \(record.path) could not be read and were skipped")
        }
        var outputs: [(path: String, text: () -> String)] = []
        if let html { outputs.append((html, { TimelineHTML.render(timeline) })) }
        if let trace { outputs.append((trace, { ChromeTrace.render(timeline) })) }
        if let markdown { outputs.append((markdown, { JobSummary.render(timeline) })) }
        if outputs.isEmpty {
            let path = "flowrun-report-\(record.run).html"
            outputs.append((path, { TimelineHTML.render(timeline) }))
            StandardError.write("flowrun: writing the timeline of run \(record.run) to \(path)\n")
        }
        let standardOutput = DescriptorWriter(descriptor: STDOUT_FILENO)
        for (path, text) in outputs {
            if path == "-" {
                standardOutput.write(Array(text().utf8))
                continue
            }
            do throws(WriteFailure) {
                try ReportFile.write(text(), to: path)
            } catch {
                throw CommandFailure("\(error)", status: ExitStatus.forCommandWriteFailure(error))
            }
        }
        if let failure = standardOutput.failure { throw CommandFailure("\(failure)", status: ExitStatus.forCommandWriteFailure(failure)) }
    }

    /// The run named `name` (its id, a unique start, `last`), or the last one; as `flowrun logs` finds it.
    static func record(named name: String?, in recorded: RecordedRuns) throws -> RunRecord {
        let (records, newer) = recorded.records()
        if let name {
            if let found = try LogsCommand.find(name, in: records) { return found }
            if let newer = newer.first(where: { $0.run.hasPrefix(name) }) { throw CommandFailure(newer.problem.description) }
            throw CommandFailure(records.isEmpty ? recorded.none : "no run '\(name)' (flowrun runs lists them)")
        }
        if let last = records.first {
            // The last run is one this flowrun cannot read: refused rather than an older one drawn.
            if let newest = newer.map(\.run).max(), newest > last.run { throw CommandFailure(newer.first { $0.run == newest }!.problem.description) }
            return last
        }
        if let newest = newer.first { throw CommandFailure(newest.problem.description) }
        throw CommandFailure(recorded.none)
    }
}
