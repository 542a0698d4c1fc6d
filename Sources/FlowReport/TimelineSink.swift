import FlowConsole
import FlowModel
import Foundation

/// Builds the run's timeline as it goes and writes the reports asked for when it ends:
/// `run --report-html PATH`, `--trace PATH`, and under GitHub Actions the job summary.
///
/// It needs no record (also with `--no-record`), and keeps what `TimelineBuilder` keeps.
/// - Warning: the builder is behind a lock; the bus never calls `receive` twice at once anyway.
package final class TimelineSink: EventSink, @unchecked Sendable {  // `lock` guards `builder` and `failure`.
    package struct Outputs: Sendable {
        package var html: String?
        package var trace: String?
        /// `$GITHUB_STEP_SUMMARY`, appended to.
        package var jobSummary: String?

        package init(html: String? = nil, trace: String? = nil, jobSummary: String? = nil) {
            self.html = html
            self.trace = trace
            self.jobSummary = jobSummary
        }
    }

    private let outputs: Outputs
    private let lock = NSLock()
    private var builder: TimelineBuilder
    private var failure: WriteFailure?

    /// Refuses at once a report path that cannot be written (a folder, a missing folder).
    package init(builder: TimelineBuilder, outputs: Outputs) throws(WriteFailure) {
        for path in [outputs.html, outputs.trace].compactMap({ $0 }) { try ReportFile.checkDestination(path) }
        self.builder = builder
        self.outputs = outputs
    }

    package func receive(_ event: RunEvent) {
        lock.withLock { builder.add(event) }
    }

    package func finish() {
        let timeline = lock.withLock { builder.timeline() }
        var firstFailure: WriteFailure?
        func attempt(_ body: () throws(WriteFailure) -> Void) {
            do throws(WriteFailure) {
                try body()
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        if let path = outputs.html { attempt { () throws(WriteFailure) in try ReportFile.write(TimelineHTML.render(timeline), to: path) } }
        if let path = outputs.trace { attempt { () throws(WriteFailure) in try ReportFile.write(ChromeTrace.render(timeline), to: path) } }
        if let path = outputs.jobSummary {
            attempt { () throws(WriteFailure) in try JobSummary.append(timeline, to: path) }
        }
        lock.withLock { failure = firstFailure }
    }

    package var writeFailure: WriteFailure? { lock.withLock { failure } }

    /// The job summary file under GitHub Actions (`GITHUB_ACTIONS=true` and `GITHUB_STEP_SUMMARY`
    /// set and not empty), else nil.
    package static func jobSummaryPath(_ environment: [String: String]) -> String? {
        guard environment["GITHUB_ACTIONS"] == "true", let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty else { return nil }
        return path
    }
}
