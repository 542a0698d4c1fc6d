import Foundation
import Testing

/// What a person sees: the plain log in a pipe, GitHub Actions folding, the JUnit report, and
/// the live view on a real pseudo-terminal.
@Suite struct ConsoleTests {
    static let workflow = """
        version: 1
        concurrency: 2
        tasks:
          build: {shell: "echo compiling; echo careful >&2"}
          test: {needs: build, shell: "echo 'expected <1> & got 2'; exit 4"}
          docs: {shell: "echo docs; sleep 0.5"}
          deploy: {needs: test, shell: "true"}
        """

    func folder() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try Data(Self.workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return folder
    }

    @Test func plainModeIsTheDefaultInAPipeWithTaskPrefixedLinesAndNoANSI() async throws {
        let folder = try folder()
        let result = try await FlowrunBinary.run(["flow.yaml"], in: folder.url, environment: ["GITHUB_ACTIONS": ""])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "workflow flow: 4 tasks, concurrency 2")
        #expect(lines.contains("[build] | compiling"))
        #expect(lines.contains("[build] ! careful"))
        #expect(lines.contains { $0.hasPrefix("[test] failed in ") && $0.hasSuffix(": exited with status 4") })
        #expect(lines.contains("[deploy] skipped: needs 'test', which did not succeed"))
        #expect(lines.last?.hasPrefix("workflow flow failed in ") == true)
        #expect(!result.stdout.contains("\u{1B}"))
    }

    @Test func underGitHubActionsEachTaskIsFoldedAndFailuresAreAnnotated() async throws {
        let folder = try folder()
        let result = try await FlowrunBinary.run(["flow.yaml"], in: folder.url, environment: ["GITHUB_ACTIONS": "true"])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("::group::") }.sorted() == ["::group::build", "::group::docs", "::group::test"])
        #expect(lines.filter { $0 == "::endgroup::" }.count == 3)
        let group = try #require(lines.firstIndex(of: "::group::test"))
        #expect(lines[group + 1] == "[test] started (shell)")
        #expect(lines[group + 2] == "expected <1> & got 2")  // unprefixed: a tool's own ::error:: works
        #expect(lines[group + 3] == "::endgroup::")
        #expect(lines.contains("::error::test failed: exited with status 4"))
        #expect(result.stdout.contains("::error::"))
    }

    @Test func theJUnitReportHasOneTestcasePerTaskWithTheFailureOutput() async throws {
        let folder = try folder()
        let result = try await FlowrunBinary.run(["flow.yaml", "--junit", "report/junit.xml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("cannot write the JUnit report"))

        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("report"), withIntermediateDirectories: true)
        #expect(try await FlowrunBinary.run(["flow.yaml", "--junit", "report/junit.xml"], in: folder.url).status == 1)
        // A standard parser reads it: python's ElementTree.
        let check = try await RunTests.python([
            "-c",
            """
            import sys, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            suite = root.find('testsuite')
            print(suite.get('tests'), suite.get('failures'), suite.get('skipped'))
            for case in suite.iter('testcase'):
                failure, skipped = case.find('failure'), case.find('skipped')
                state = 'failed:' + failure.get('message') + ':' + failure.text.strip() if failure is not None else 'skipped' if skipped is not None else 'ok'
                print(case.get('name'), state)
            """, folder.url.appendingPathComponent("report/junit.xml").path,
        ])
        #expect(check.status == 0)
        #expect(
            check.output.split(separator: "\n").sorted() == [
                "4 1 1", "build ok", "deploy skipped", "docs ok", "test failed:exited with status 4:expected <1> & got 2",
            ])
    }

    @Test func theLiveViewOnATerminalShowsProgressThenASummaryTable() async throws {
        let folder = try folder()
        let (status, screen) = try await PseudoTerminal.run(["flow.yaml"], in: folder.url)
        #expect(status == 1)
        #expect(screen.contains("\u{1B}[?25l"))  // cursor hidden while live
        #expect(screen.hasSuffix("\u{1B}[?25h") || screen.hasSuffix("\u{1B}[?25h\r\n"))  // and shown again at the end
        #expect(screen.contains("\u{1B}[32m"))  // colour on a terminal without NO_COLOR
        let plain = screen.replacingOccurrences(of: #"\x{1B}\[[0-9;?]*[A-Za-z]"#, with: "", options: .regularExpression)
        #expect(plain.contains("task    result     duration  attempts"))
        for row in ["build   succeeded", "docs    succeeded", "test    failed", "deploy  skipped"] {
            #expect(plain.contains(row), "\(row)")
        }
        #expect(plain.contains("workflow flow failed in "))
    }

    @Test func withNoFileItRunsFlowrunYamlFromTheCurrentFolder() async throws {
        let folder = try TemporaryFolder()
        let missing = try await FlowrunBinary.run([], in: folder.url)
        #expect(missing.status == 2)
        #expect(
            missing.stderr.hasPrefix(
                "flowrun: error: no workflow file given, and no flowrun.yaml or flowrun.yml in \(folder.url.resolvingSymlinksInPath().path), "))
        try Data("version: 1\ntasks:\n  hi: {shell: echo hi}\n".utf8).write(to: folder.url.appendingPathComponent("flowrun.yml"))
        let found = try await FlowrunBinary.run(["--events", "jsonl"], in: folder.url)
        #expect(found.status == 0)
        #expect(try EventStream(found.stdout).lines(of: "hi") == ["hi"])
    }
}
