import FlowEvents
import FlowModel
import Foundation
import FoundationXML
import Testing

@testable import FlowConsole

@Suite struct JUnitReportTests {
    /// Plays `script` into a report in a fresh folder and parses what it wrote.
    private func report(of script: EventScript) throws -> (XMLDocument, folder: [String]) {
        let file = try OutputFile()
        defer { file.remove() }
        let report = try JUnitReport(path: file.path)
        script.play(into: report)
        #expect(report.writeFailure == nil)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: file.path), options: [])
        return (document, try FileManager.default.contentsOfDirectory(atPath: file.folder.path))
    }

    private func attributes(_ element: XMLElement?) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (element?.attributes ?? []).map { ($0.name ?? "", $0.stringValue ?? "") })
    }

    @Test func reportsOneTestCasePerTask() throws {
        let (document, files) = try report(of: sampleRun())
        #expect(files == ["out"])  // the temporary file was renamed, not left behind
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        let suites = root.elements(forName: "testsuite")
        #expect(suites.count == 1)
        let counts = ["name": "upgrade", "tests": "4", "failures": "1", "errors": "1", "time": "8.010"]
        #expect(attributes(root) == counts)
        let suite = attributes(suites.first)
        #expect(suite.filter { $0.key != "timestamp" && $0.key != "hostname" } == counts.merging(["skipped": "1"]) { $1 })
        // When the run started, in local time without a zone, as Ant and Jenkins read it.
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        #expect(format.date(from: suite["timestamp"] ?? "")?.timeIntervalSince1970 == Double(EventScript.base / 1000))
        let hostname = try String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8)
        #expect(suite["hostname"] == hostname.trimmingCharacters(in: .whitespacesAndNewlines))
        let cases = suites.first?.elements(forName: "testcase") ?? []
        #expect(
            cases.map(attributes) == [
                ["classname": "upgrade", "name": "fetch", "time": "7.397"],
                ["classname": "upgrade", "name": "build", "time": "8.000"],
                ["classname": "upgrade", "name": "test", "time": "0.000"],
                ["classname": "upgrade", "name": "deploy", "time": "0.000"],
            ])
        #expect((cases[0].children ?? []).isEmpty)
        let failure = try #require(cases[1].elements(forName: "failure").first)
        #expect(attributes(failure) == ["message": "exited with status 2"])
        #expect(failure.stringValue == "warning: slow\n\n")
        #expect(cases[2].elements(forName: "skipped").map(attributes) == [["message": "needs 'build', which did not succeed"]])
        #expect(cases[3].elements(forName: "error").map(attributes) == [["message": "the run failed (fail_fast)", "type": "cancelled"]])
    }

    @Test func failureHoldsTheLastFiftyLinesOfOutputInTheOrderTheyCame() throws {
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "w", file: "f", tasks: 1, concurrency: 1))
        script.at(1, .taskStarted(task: "t", attempt: 1, kind: "shell"))
        for index in 1...40 {
            script.at(Int64(index), .taskOutput(task: "t", stream: index.isMultiple(of: 2) ? .stderr : .stdout, line: "first \(index)"))
        }
        script.at(50, .taskRetrying(task: "t", attempt: 1, delayMilliseconds: 10, reason: "r"))
        script.at(60, .taskStarted(task: "t", attempt: 2, kind: "shell"))
        for index in 1...20 { script.at(60 + Int64(index), .taskOutput(task: "t", stream: .stdout, line: "second \(index)")) }
        script.at(90, .taskFailed(task: "t", attempts: 2, durationMilliseconds: 89, reason: "exited with status 1", exitCode: 1))
        let (document, _) = try report(of: script)
        let failure = try #require(
            document.rootElement()?.elements(forName: "testsuite").first?
                .elements(forName: "testcase").first?.elements(forName: "failure").first)
        let expected = (12...40).map { "first \($0)" } + ["--- attempt 2 ---"] + (1...20).map { "second \($0)" }
        #expect(expected.count == JUnitReport.outputLines)
        #expect(failure.stringValue == expected.joined(separator: "\n") + "\n")
    }

    /// A task that printed more lines than the report keeps (51, so the ring's start had moved)
    /// and then succeeded: its lines were dropped but not the ring's start, and writing the
    /// report trapped (`seq 1 51` with `--junit` crashed flowrun with exit 132, and no report).
    @Test func aTaskThatPrintedMoreThanFiftyLinesAndSucceededIsAPlainTestCase() throws {
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "w", file: "f", tasks: 2, concurrency: 1))
        script.at(1, .taskStarted(task: "chatty", attempt: 1, kind: "shell"))
        for index in 1...51 { script.at(1, .taskOutput(task: "chatty", stream: .stdout, line: "\(index)")) }
        script.at(2, .taskSucceeded(task: "chatty", attempts: 1, durationMilliseconds: 1))
        script.at(3, .taskStarted(task: "after", attempt: 1, kind: "shell"))
        script.at(4, .taskFailed(task: "after", attempts: 1, durationMilliseconds: 1, reason: "exited with status 1", exitCode: 1))
        let (document, _) = try report(of: script)
        let cases = document.rootElement()?.elements(forName: "testsuite").first?.elements(forName: "testcase") ?? []
        #expect(cases.map { attributes($0)["name"] } == ["chatty", "after"])
        #expect((cases.first?.children ?? []).isEmpty)
        #expect(cases.last?.elements(forName: "failure").map(attributes) == [["message": "exited with status 1"]])
    }

    @Test func escapesMarkupAndDropsWhatXMLCannotHold() throws {
        var script = EventScript()
        let hostile = "<b>\"fish\" & 'chips'</b>\u{1}\u{1B}[31m]]>\u{FFFF}\ttab"
        script.at(0, .workflowStarted(workflow: "a&b", file: "f", tasks: 1, concurrency: 1))
        script.at(1, .taskStarted(task: "t", attempt: 1, kind: "shell"))
        script.at(2, .taskOutput(task: "t", stream: .stdout, line: hostile))
        script.at(3, .taskFailed(task: "t", attempts: 1, durationMilliseconds: 2, reason: hostile + "\nsecond line", exitCode: 1))
        let (document, _) = try report(of: script)
        let suite = document.rootElement()?.elements(forName: "testsuite").first
        #expect(attributes(suite)["name"] == "a&b")
        let failure = suite?.elements(forName: "testcase").first?.elements(forName: "failure").first
        let clean = "<b>\"fish\" & 'chips'</b>]]>\ttab"
        #expect(attributes(failure)["message"] == clean + "\nsecond line")
        #expect(failure?.stringValue == clean + "\n")
    }

    /// Ctrl-C stops `build` and the run breaks off before `test` ends: Jenkins must not show
    /// that as green, so both are errors.
    @Test func anInterruptedRunHasErrorsNotSkips() throws {
        var script = EventScript()
        script.at(0, .workflowStarted(workflow: "w", file: "f", tasks: 2, concurrency: 2))
        script.at(1, .taskStarted(task: "build", attempt: 1, kind: "shell"))
        script.at(2, .taskStarted(task: "test", attempt: 1, kind: "shell"))
        script.at(3, .taskOutput(task: "build", stream: .stdout, line: "compiling"))
        script.at(1001, .taskCancelled(task: "build", reason: "cancelled by SIGINT"))
        let (document, _) = try report(of: script)
        let suite = try #require(document.rootElement()?.elements(forName: "testsuite").first)
        #expect(attributes(suite)["errors"] == "2")
        #expect(attributes(suite)["failures"] == "0")
        #expect(attributes(suite)["skipped"] == "0")
        let errors = suite.elements(forName: "testcase").map { $0.elements(forName: "error").first }
        #expect(errors.map(attributes) == [["message": "cancelled by SIGINT", "type": "cancelled"], ["message": "did not finish", "type": "cancelled"]])
        #expect(errors.first??.stringValue == "compiling\n")
        #expect(attributes(suite.elements(forName: "testcase").first)["time"] == "1.000")
    }

    /// Every report flowrun writes (failures, skips, cancels, allowed failures, a run that broke
    /// off, hostile text) is valid against Jenkins' xUnit junit-10.xsd, checked with xmlschema.
    @Test func reportsAreValidAgainstTheJenkinsXUnitSchema() async throws {
        var hostile = EventScript()
        hostile.at(0, .workflowStarted(workflow: "a&b <c>", file: "f", tasks: 1, concurrency: 1))
        hostile.at(1, .taskStarted(task: "t", attempt: 1, kind: "shell"))
        hostile.at(2, .taskOutput(task: "t", stream: .stdout, line: "<b>\"x\" & 'y'</b>\u{1}\u{1B}[31m]]>\u{FFFF}"))
        hostile.at(3, .taskFailed(task: "t", attempts: 1, durationMilliseconds: 2, reason: "]]> & <", exitCode: 1, allowed: true))
        var brokenOff = EventScript()
        brokenOff.at(0, .taskStarted(task: "t", attempt: 1, kind: "shell"))
        let folder = try OutputFile()
        defer { folder.remove() }
        var paths: [String] = []
        for (index, script) in [sampleRun(), hostile, brokenOff, EventScript()].enumerated() {
            let path = folder.folder.appendingPathComponent("report-\(index).xml").path
            let report = try JUnitReport(path: path)
            script.play(into: report)
            #expect(report.writeFailure == nil)
            paths.append(path)
        }
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let check = try await python(
            [here.appendingPathComponent("validate_junit.py").path, here.appendingPathComponent("junit-10.xsd").path] + paths)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output == "ok: 4 reports\n")
    }

    /// Runs python3 with `arguments` (scripts/install-deps --tests installs xmlschema) off the
    /// test's thread; its status and its stdout and stderr together.
    private func python(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
        }
    }

    @Test func refusesAFolderBeforeTheRun() throws {
        let file = try OutputFile()
        defer { file.remove() }
        #expect(throws: DescriptorWriter.OpenError.self) { try JUnitReport(path: file.folder.path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.folder.path).isEmpty)
    }

    @Test func refusesAFolderItCannotWriteBeforeTheRun() {
        #expect(throws: DescriptorWriter.OpenError.self) {
            try JUnitReport(path: "/nonexistent-\(UUID().uuidString)/report.xml")
        }
    }
}
