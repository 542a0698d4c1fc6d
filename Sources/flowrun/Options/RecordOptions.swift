import ArgumentParser
import FlowConsole
import FlowEvents
import FlowModel
import FlowPlanning
import FlowState
import Foundation

/// The run options about the run record: whether to write one, what it keeps, and the lock.
struct RecordOptions: ParsableArguments {
    static let defaultOutputCap = 1 << 20
    static let defaultKeptRuns = 50

    @Flag(help: "Write no run record (in .flowrun/ beside the file, or $FLOWRUN_STATE_DIR), and take no lock.")
    var noRecord = false

    @Option(help: ArgumentHelp("Most bytes of each task's output that the run record keeps (default 1 MiB; suffixes K, M, G).", valueName: "BYTES"))
    var recordOutputCap: ByteCount = ByteCount(Self.defaultOutputCap)

    @Option(help: ArgumentHelp("Run records kept for this workflow file; older ones are removed (default 50).", valueName: "N"))
    var keepRuns: Int = Self.defaultKeptRuns

    @Flag(help: "If another flowrun is using the state folder, stop at once (exit 2) rather than wait for it.")
    var noWait = false

    func validate() throws {
        if keepRuns < 1 { throw ValidationError("--keep-runs must be at least 1") }
    }

    /// Takes the state folder's lock (waiting for it, with a message, unless `--no-wait`), then
    /// starts the record of this run and prunes old ones. Returns nil with `--no-record`. A
    /// record that cannot be started is a warning: the run goes on without it.
    /// `workflowDigest`: the file's digest when the plan's loading took it already.
    /// `flushTimer`: when the record's batches are written (`BatchedWriter`); its own by default.
    func startRecording(
        file: String, plan: Plan, environment: [String: String], workflowDigest: String? = nil, flushTimer: (any FlushTimer)? = nil
    ) throws -> RunRecorder? {
        guard !noRecord else { return nil }
        let workflowFile = URL(fileURLWithPath: file).standardizedFileURL.path
        let folder = StateFolder(forWorkflowAt: workflowFile, environment: environment)
        do throws(StateLock.Failure) {
            let lock = try StateLock(folder: folder, wait: !noWait) { holder in
                Self.warn("waiting for another flowrun\(holder.map { " (pid \($0))" } ?? "") to finish with the state folder \(folder.path)", label: "note")
            }
            KeptUntilExit.keep(lock)  // held until flowrun exits
        } catch .unusable(let path, let reason) {
            Self.warn("cannot record this run: \(StateLock.Failure.unusable(path: path, reason: reason))")
            return nil
        } catch {
            throw CommandFailure(error.description)  // busy under --no-wait, or held by the flowrun that started this one
        }
        let store = RunRecordStore(folder: folder)
        let started = Int64(Date().timeIntervalSince1970 * 1000)
        do {
            let (run, path) = try store.newRecord(forWorkflow: workflowFile, startedMilliseconds: started)
            var header = RecordHeader(
                run: run, workflow: plan.workflow.name, file: workflowFile, digest: workflowDigest ?? WorkflowDigest.ofFile(at: workflowFile),
                startedMilliseconds: started, outputCap: recordOutputCap.bytes, plan: [])
            header.taskCount = plan.tasks.count
            // The plan's line is made only if a task runs: a no-op rerun writes none.
            let recorder = try RunRecorder(path: path, header: header, planLine: { RecordHeader.encodedPlan(of: plan) }, flushTimer: flushTimer) {
                failure in
                Self.warn("\(failure); the run goes on, its record stops here")
            }
            for problem in store.prune(forWorkflow: workflowFile, keep: keepRuns) { Self.warn(problem) }
            return recorder
        } catch {
            Self.warn("cannot record this run in \(folder.path): \(error)")
            return nil
        }
    }

    static func warn(_ message: String, label: String = "warning") {
        StandardError.write("flowrun: \(label): \(VisibleText.escaped(message))\n")
    }
}

/// A number of bytes on the command line: `65536`, `64K`, `1M`, `2G` (powers of 1024, as `ulimit`).
struct ByteCount: ExpressibleByArgument, Sendable {
    var bytes: Int

    init(_ bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let multipliers: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = argument.uppercased()
        var multiplier = 1
        if let last = digits.last, let found = multipliers[last] {
            multiplier = found
            digits.removeLast()
        }
        guard let value = Int(digits), value >= 0, value <= Int.max / multiplier else { return nil }
        bytes = value * multiplier
    }

    var defaultValueDescription: String { "\(bytes)" }
}
