import ArgumentParser
import FlowConsole
import FlowEvents
import FlowModel
import FlowState
import Foundation

/// `flowrun runs [FILE]`: the past runs, newest first.
struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "List the recorded runs of a workflow, newest first.",
        discussion: """
            Reads the run records in .flowrun/ beside FILE (or $FLOWRUN_STATE_DIR). With no FILE, \
            lists every run recorded in .flowrun/ of the current folder (when it has none, beside \
            the flowrun.yaml found above it). A run whose record has no \
            end (flowrun was killed, or the machine went down) shows as interrupted; one that \
            another flowrun is still running shows as running, with its duration so far.
            """
    )

    @Argument(help: ArgumentHelp("The workflow file (default: every workflow of the current folder).", valueName: "FILE"))
    var fileArgument: String?

    /// `-f FILE`, as `logs` and `report` take it (the hint with no record names that form).
    @Option(name: [.short, .customLong("file")], help: ArgumentHelp("The same as FILE.", valueName: "FILE"))
    var fileOption: String?

    var file: String? { fileArgument ?? fileOption }

    func validate() throws {
        if fileArgument != nil && fileOption != nil { throw ValidationError("give the workflow file once: FILE or -f FILE") }
    }

    @Flag(help: "Print a JSON array of runs rather than a table.")
    var json = false

    func run() throws {
        let recorded = RecordedRuns(file: file)
        let rows = recorded.records().records.map { ($0, recorded.summary(of: $0)) }
        let standardOutput = DescriptorWriter(descriptor: STDOUT_FILENO)
        if json {
            standardOutput.write(try Self.json(rows))
        } else if rows.isEmpty {
            standardOutput.write(recorded.none + "\n")
        } else {
            standardOutput.write(Self.table(rows))
        }
        if let failure = standardOutput.failure { throw CommandFailure("\(failure)", status: ExitStatus.forCommandWriteFailure(failure)) }
    }

    static func table(_ rows: [(RunRecord, RunSummary)]) -> String {
        let header = ["ID", "STARTED", "DURATION", "RESULT", "SUCCEEDED", "FAILED", "CANCELLED", "SKIPPED", "ALLOWED"]
        let cells = rows.map { record, summary in
            [
                record.run, started(record.header.startedMilliseconds),
                // An interrupted run lasted at least until its last recorded event: its end was not seen.
                (summary.result == .interrupted ? ">" : "")
                    + DurationText.string(milliseconds: Self.ended(summary) - record.header.startedMilliseconds),
                // As the console's last line: an allowed failure (continue_on_error) did not
                // fail the run, and has a count of its own (last, where it adds a column).
                summary.result.rawValue, "\(summary.counts.succeeded)", "\(summary.counts.failed - summary.counts.allowed)",
                "\(summary.counts.cancelled)", "\(summary.counts.skipped)", "\(summary.counts.allowed)",
            ]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        return ([header] + cells).map { row in
            row.indices.map { $0 == row.count - 1 ? row[$0] : row[$0].padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }
                .joined()
        }.joined(separator: "\n") + "\n"
    }

    /// When the run ended; for a run still running, now (its duration so far).
    static func ended(_ summary: RunSummary) -> Int64 {
        summary.result == .running ? max(summary.endedMilliseconds, Int64(Date().timeIntervalSince1970 * 1000)) : summary.endedMilliseconds
    }

    static func json(_ rows: [(RunRecord, RunSummary)]) throws -> String {
        let objects: [[String: Any]] = rows.map { record, summary in
            [
                "id": record.run, "workflow": record.header.workflow, "file": record.header.file,
                "digest": record.header.digest.map { $0 as Any } ?? NSNull(), "started": time(record.header.startedMilliseconds),
                "ended": summary.result == .running ? NSNull() : time(summary.endedMilliseconds) as Any,
                "duration_ms": Self.ended(summary) - record.header.startedMilliseconds,
                "result": summary.result.rawValue, "tasks": record.header.taskCount,
                "counts": [
                    "succeeded": summary.counts.succeeded, "failed": summary.counts.failed,
                    "cancelled": summary.counts.cancelled, "skipped": summary.counts.skipped,
                    "allowed": summary.counts.allowed, "up_to_date": summary.counts.upToDate,
                    "done_before": summary.counts.doneBefore,
                ],
                "record": record.path,
            ]
        }
        let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// RFC 3339 UTC with milliseconds, as the event stream writes times.
    static func time(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// The start as a table shows it: UTC to the second.
    private static func started(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
