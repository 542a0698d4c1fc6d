import FlowConsole
import FlowModel
import Foundation
import FoundationXML
import Testing

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
        let counts = ["tests": "4", "failures": "1", "errors": "0", "skipped": "2", "time": "8.010"]
        #expect(attributes(suites.first) == counts.merging(["name": "upgrade"]) { $1 })
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
        #expect(cases[3].elements(forName: "skipped").map(attributes) == [["message": "the run failed (fail_fast)"]])
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
