import ArgumentParser
import FlowModel
import FlowPlanning
import FlowReport
import FlowState
import Foundation

/// The run options that draw the run when it ends: `--report-html`, `--trace`, and GitHub's
/// job summary, which is appended to under GitHub Actions without being asked for.
struct RunReportOptions: ParsableArguments {
    @Option(help: ArgumentHelp("At the end, write the run's HTML timeline here (as flowrun report --html).", valueName: "PATH"), completion: .file())
    var reportHtml: String?

    @Option(help: ArgumentHelp("At the end, write a Chrome trace (JSON; Perfetto) of the run here.", valueName: "PATH"), completion: .file())
    var trace: String?

    /// The sink that writes the reports, or nil when none is asked for and this is not GitHub
    /// Actions. A report path that cannot be written is refused before the run.
    func sink(plan: Plan, file: String, recorder: RunRecorder?, environment: [String: String]) throws -> TimelineSink? {
        let outputs = TimelineSink.Outputs(html: reportHtml, trace: trace, jobSummary: TimelineSink.jobSummaryPath(environment))
        guard outputs.html != nil || outputs.trace != nil || outputs.jobSummary != nil else { return nil }
        let run = recorder.map { (($0.path as NSString).lastPathComponent as NSString).deletingPathExtension }
        let builder = TimelineBuilder(
            workflow: plan.workflow.name, run: run, file: URL(fileURLWithPath: file).standardizedFileURL.path,
            startedMilliseconds: Int64(Date().timeIntervalSince1970 * 1000), plan: RecordHeader.PlanEntry.entries(of: plan))
        do throws(WriteFailure) {
            return try TimelineSink(builder: builder, outputs: outputs)
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
