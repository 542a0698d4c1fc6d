import FlowEvents
import FlowFiles
import FlowModel
import Foundation

/// Writes a JUnit XML report when the run is over: `--junit PATH`, for CI systems that show tests.
///
/// One `<testsuite>` named after the workflow, with one `<testcase>` per task, in the order
/// the tasks first appeared in the stream:
///
/// ```xml
/// <?xml version="1.0" encoding="UTF-8"?>
/// <testsuites name="upgrade" tests="5" failures="1" errors="1" time="4.600">
///   <testsuite name="upgrade" tests="5" failures="1" errors="1" skipped="1" time="4.600"
///       timestamp="2026-11-23T10:30:00" hostname="ci-7">
///     <testcase classname="upgrade" name="fetch" time="1.300"/>
///     <testcase classname="upgrade" name="build" time="3.100">
///       <failure message="exited with status 2">last lines of output</failure>
///     </testcase>
///     <testcase classname="upgrade" name="lint" time="0.200">
///       <system-out>allowed failure (continue_on_error): exited with status 1
/// last lines of output</system-out>
///       <system-err>allowed failure (continue_on_error): exited with status 1</system-err>
///     </testcase>
///     <testcase classname="upgrade" name="test" time="0.000">
///       <skipped message="needs 'build', which did not succeed"/>
///     </testcase>
///     <testcase classname="upgrade" name="deploy" time="1.000">
///       <error message="cancelled by SIGINT" type="cancelled">last lines of output</error>
///     </testcase>
///   </testsuite>
/// </testsuites>
/// ```
///
/// The form is Jenkins' xUnit `junit-10.xsd` (the test suite checks every report against it):
/// no `skipped` on `<testsuites>`; `timestamp` (the run's start, local time without a zone, as
/// Ant and Maven Surefire write it) and `hostname` on `<testsuite>`. A failure's body holds the
/// last `outputLines` lines of the task's output, stdout and stderr interleaved as they came
/// (with a marker where a new attempt began). An allowed failure (`continue_on_error`) is no
/// failure, so that it does not turn the build red: it passes, with its reason and last lines
/// in `<system-out>` and its reason in `<system-err>`. A cancelled task, or one that never
/// ended, is an `<error>`, so that an interrupted run does not look green. Text is escaped for
/// XML, and characters XML 1.0 cannot hold (most C0 controls, U+FFFE, U+FFFF) are dropped,
/// with terminal escape sequences.
///
/// The initialiser opens what it will write, so that a report that cannot be written is refused
/// before the run starts (a folder, too: as `curl -o`). A new file or a regular one (also behind
/// a symbolic link, which stays a link) gets a temporary file beside it, which `finish()` writes,
/// flushes to disk and renames over it: a reader never sees half a report, and an old report is
/// replaced only by a whole new one. A device or a FIFO (`/dev/stdout`, `/dev/null`, a pipe to a
/// reader) is written directly, as `tee` would, never replaced by a file.
///
/// - Warning: the state is behind a `LockedState`; the bus never calls `receive` twice at once anyway.
package final class JUnitReport: EventSink {
    /// How many of a task's last output lines a failure shows.
    package static let outputLines = 50
    /// Output lines longer than this are cut, so that 50 lines stay a readable size.
    static let maximumLineLength = 2000

    package let path: String
    /// The file renamed over at the end, or nil when `path` is written directly.
    private let replacing: (temporary: String, destination: String)?
    private let writer: DescriptorWriter
    private let state = LockedState(State())
    private let failure = LockedState<WriteFailure?>(nil)

    private struct State {
        var workflow = ""
        var startedAt: Int64?
        var durationMilliseconds: Int64?
        var order: [TaskID] = []
        var cases: [TaskID: TestCase] = [:]

        /// Gives `task` a test case, in first-seen order.
        mutating func touch(_ task: TaskID) {
            guard cases[task] == nil else { return }
            cases[task] = TestCase()
            order.append(task)
        }
    }

    private struct TestCase {
        var startedAt: Int64?
        var result: Result?
        /// The last lines of output, oldest first once `output.count` reaches the limit at `next`.
        var output: [String] = []
        var next = 0

        enum Result {
            case succeeded(durationMilliseconds: Int64)
            case failed(durationMilliseconds: Int64, reason: String)
            case allowed(durationMilliseconds: Int64, reason: String)
            case cancelled(durationMilliseconds: Int64, reason: String)
            case skipped(durationMilliseconds: Int64, reason: String)
        }

        mutating func append(_ line: String) {
            let line = line.count > JUnitReport.maximumLineLength ? String(line.prefix(JUnitReport.maximumLineLength)) + "…" : line
            if output.count < JUnitReport.outputLines {
                output.append(line)
            } else {
                output[next] = line
                next = (next + 1) % JUnitReport.outputLines
            }
        }

        var lastLines: [String] { Array(output[next...] + output[..<next]) }

        /// Drops the lines kept, and with them where the ring starts (`lastLines` would trap).
        mutating func dropOutput() {
            output = []
            next = 0
        }
    }

    /// Opens `path` if it is a device or a FIFO, or else creates the temporary file beside the
    /// file it names; throws if that cannot be done, or if `path` is a folder.
    package init(path: String) throws(DescriptorWriter.OpenError) {
        self.path = path
        var target = stat()
        var link = stat()
        let exists = stat(path, &target) == 0
        if exists, target.st_mode & S_IFMT == S_IFDIR { throw DescriptorWriter.OpenError(path: path, code: EISDIR) }
        let isRegular = exists && target.st_mode & S_IFMT == S_IFREG
        let isDanglingLink = !exists && lstat(path, &link) == 0
        guard isRegular || (!exists && !isDanglingLink) else {
            // A device, a FIFO, or a link to nothing yet (created through it, as `curl -o` does).
            writer = try DescriptorWriter(creatingFileAt: path)
            replacing = nil
            return
        }
        // A link's target is replaced, not the link; realpath fails only for a new file.
        let destination =
            realpath(path, nil).map { resolved in
                defer { free(resolved) }
                return String(cString: resolved)
            } ?? path
        let url = URL(fileURLWithPath: destination)
        let folder = url.deletingLastPathComponent().path
        let temporary: (descriptor: Int32, path: String)
        do {
            temporary = try TemporaryFile.create(in: folder, for: url.lastPathComponent, access: .shared)
        } catch {
            throw DescriptorWriter.OpenError(path: path, code: error.code)
        }
        writer = DescriptorWriter(owning: temporary.descriptor, name: path)
        // The new report keeps the old one's permissions, as an edit in place would.
        if isRegular { _ = fchmod(writer.descriptor, target.st_mode & 0o7777) }
        replacing = (temporary.path, destination)
    }

    /// Why the report could not be written, once `finish()` has tried; nil if it was written.
    package var writeFailure: WriteFailure? { failure.withLock { $0 } }

    package func receive(_ event: RunEvent) {
        state.withLock { state in
            if state.startedAt == nil { state.startedAt = event.timeMilliseconds }
            switch event.kind {
            case .workflowStarted(let workflow, _, _, _):
                state.workflow = workflow
                state.startedAt = event.timeMilliseconds
            case .taskReady(let task):
                state.touch(task)
            case .taskStarted(let task, let attempt, _):
                state.touch(task)
                if state.cases[task]?.startedAt == nil { state.cases[task]?.startedAt = event.timeMilliseconds }
                if attempt > 1 { state.cases[task]?.append("--- attempt \(attempt) ---") }
            case .taskOutput(let task, _, let line):
                state.touch(task)
                state.cases[task]?.append(line)
            case .taskSucceeded(let task, _, let duration):
                state.touch(task)
                state.cases[task]?.result = .succeeded(durationMilliseconds: duration)
                state.cases[task]?.dropOutput()  // only failures show output
            case .taskFailed(let task, _, let duration, let reason, _, let allowed):
                state.touch(task)
                state.cases[task]?.result =
                    allowed
                    ? .allowed(durationMilliseconds: duration, reason: reason) : .failed(durationMilliseconds: duration, reason: reason)
            case .taskCancelled(let task, let reason):
                state.touch(task)
                let duration = state.cases[task]?.startedAt.map { event.timeMilliseconds - $0 } ?? 0
                state.cases[task]?.result = .cancelled(durationMilliseconds: duration, reason: reason)
            case .taskSkipped(let task, let reason, let run):
                state.touch(task)
                let duration = state.cases[task]?.startedAt.map { event.timeMilliseconds - $0 } ?? 0
                let why = run.map { "\(reason) (run \($0))" } ?? reason
                state.cases[task]?.result = .skipped(durationMilliseconds: duration, reason: why)
                state.cases[task]?.dropOutput()
            case .workflowFinished(let workflow, _, let duration, _):
                state.workflow = workflow
                state.durationMilliseconds = duration
            case .taskProgress, .taskRetrying, .queueSuspended, .queueResumed, .workflowCleanup:
                break
            }
        }
    }

    /// Writes the report: to the temporary file, flushed and renamed over the destination if
    /// all of it was written (or else removed, and the old report kept); or directly.
    package func finish() {
        let document = state.withLock { Self.document($0) }
        writer.write(document)
        if replacing != nil { writer.synchronize() }
        writer.close()
        var code = writer.failure?.code
        if let (temporary, destination) = replacing {
            if code == nil, rename(temporary, destination) != 0 { code = errno }
            if code != nil { unlink(temporary) }
        }
        if let code { failure.withLock { $0 = WriteFailure(output: path, code: code) } }
    }

    private static func document(_ state: State) -> String {
        var tests = 0, failures = 0, errors = 0, skipped = 0
        var body = ""
        let suite = XMLText.escaped(state.workflow)
        for task in state.order {
            guard let testCase = state.cases[task] else { continue }
            tests += 1
            let opening = "    <testcase classname=\"\(suite)\" name=\"\(XMLText.escaped(task))\""
            let output = testCase.lastLines.map { XMLText.escaped($0, isAttribute: false) + "\n" }.joined()
            switch testCase.result {
            case .succeeded(let duration):
                body += "\(opening) time=\"\(DurationText.seconds(milliseconds: duration))\"/>\n"
            case .failed(let duration, let reason):
                failures += 1
                body += "\(opening) time=\"\(DurationText.seconds(milliseconds: duration))\">\n"
                body += "      <failure message=\"\(XMLText.escaped(reason))\">\(output)</failure>\n"
                body += "    </testcase>\n"
            case .allowed(let duration, let reason):
                let message = XMLText.escaped("allowed failure (continue_on_error): \(reason)", isAttribute: false)
                body += "\(opening) time=\"\(DurationText.seconds(milliseconds: duration))\">\n"
                body += "      <system-out>\(message)\n\(output)</system-out>\n"
                body += "      <system-err>\(message)\n</system-err>\n"
                body += "    </testcase>\n"
            case .cancelled(let duration, let reason):
                errors += 1
                body += "\(opening) time=\"\(DurationText.seconds(milliseconds: duration))\">\n"
                body += "      <error message=\"\(XMLText.escaped(reason))\" type=\"cancelled\">\(output)</error>\n"
                body += "    </testcase>\n"
            case .skipped(let duration, let reason):
                skipped += 1
                body += "\(opening) time=\"\(DurationText.seconds(milliseconds: duration))\">\n"
                body += "      <skipped message=\"\(XMLText.escaped(reason))\"/>\n"
                body += "    </testcase>\n"
            case nil:
                // Never reached a final state: the run broke off, which is no success.
                errors += 1
                body += "\(opening) time=\"0.000\">\n      <error message=\"did not finish\" type=\"cancelled\">\(output)</error>\n    </testcase>\n"
            }
        }
        let time = DurationText.seconds(milliseconds: state.durationMilliseconds ?? 0)
        let counts = "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\""
        let host = XMLText.escaped(SuiteAttributes.hostname())
        let timestamp = state.startedAt.map { " timestamp=\"\(SuiteAttributes.timestamp(milliseconds: $0))\"" } ?? ""
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="\(suite)" \(counts) time="\(time)">
              <testsuite name="\(suite)" \(counts) skipped="\(skipped)" time="\(time)"\(timestamp) hostname="\(host)">
            \(body)  </testsuite>
            </testsuites>

            """
    }
}
