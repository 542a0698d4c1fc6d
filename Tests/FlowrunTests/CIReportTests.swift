import Foundation
import Testing

/// What users of GitHub Actions and Jenkins check in a CI run of the real binary: an allowed
/// failure stays green everywhere, a tool's own workflow commands work, the log ends with what
/// failed, and the JUnit report is valid against Jenkins' junit-10.xsd, also when interrupted.
@Suite struct CIReportTests {
    static let workflow = """
        version: 1
        tasks:
          lint: {continue_on_error: true, shell: "echo '::error file=src/app.py,line=3::undefined name x'; echo E501 >&2; exit 1"}
          test: {needs: lint, shell: "echo '::add-mask::s3cr3t'; echo passed"}
        """

    private func folder(_ workflow: String = Self.workflow) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try Data(workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return folder
    }

    /// Checks `reports` against Tests/FlowConsoleTests/junit-10.xsd with python's xmlschema.
    private func validateJUnit(_ reports: [String]) async throws -> (status: Int32, output: String) {
        let tests = FlowrunBinary.repositoryRoot.appendingPathComponent("Tests/FlowConsoleTests")
        return try await RunTests.python(
            [tests.appendingPathComponent("validate_junit.py").path, tests.appendingPathComponent("junit-10.xsd").path] + reports)
    }

    @Test func aContinueOnErrorFailureIsAllowedAndTheRunStaysGreen() async throws {
        let folder = try folder()
        let result = try await FlowrunBinary.run(
            ["run", "--events", "plain", "--junit", "junit.xml", "--events-file", "events.jsonl", "flow.yaml"], in: folder.url,
            environment: ["GITHUB_ACTIONS": ""])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("[lint] allowed failure in ") && $0.hasSuffix(": exited with status 1 (continue_on_error)") })
        #expect(lines.last?.hasPrefix("workflow flow succeeded in ") == true)
        #expect(lines.last?.hasSuffix(": 1 succeeded, 1 allowed failure") == true)

        let events = try EventStream(try String(contentsOf: folder.url.appendingPathComponent("events.jsonl"), encoding: .utf8))
        #expect(events.named("task.failed").first?["allowed"] as? Bool == true)
        let counts = events.named("workflow.finished").first?["counts"] as? [String: Int]
        #expect(counts?["failed"] == 1 && counts?["allowed"] == 1)
        let check = try await RunTests.python([
            "Tests/FlowConsoleTests/validate_events.py", "schemas/events.schema.json", folder.url.appendingPathComponent("events.jsonl").path,
        ])
        #expect(check.status == 0, "\(check.output)")

        let report = try String(contentsOf: folder.url.appendingPathComponent("junit.xml"), encoding: .utf8)
        #expect(report.contains(#"failures="0" errors="0""#))
        #expect(!report.contains("<failure"))
        #expect(report.contains("<system-out>allowed failure (continue_on_error): exited with status 1\n"))
    }

    @Test func underGitHubActionsAToolsWorkflowCommandsWorkAndAnAllowedFailureWarns() async throws {
        let folder = try folder()
        let result = try await FlowrunBinary.run(["run", "flow.yaml"], in: folder.url, environment: ["GITHUB_ACTIONS": "true", "CI": "true"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("::error file=src/app.py,line=3::undefined name x"))
        #expect(lines.contains("::add-mask::s3cr3t"))
        #expect(lines.contains("[lint] started (shell)"))
        #expect(lines.contains("::warning::lint failed (allowed by continue_on_error): exited with status 1"))
        // The only error is the tool's own, passed through; flowrun adds none.
        #expect(lines.filter { $0.hasPrefix("::error") } == ["::error file=src/app.py,line=3::undefined name x"])
    }

    @Test(arguments: [false, true])
    func theLogEndsByNamingTheFailedTaskWithItsLastLines(githubActions: Bool) async throws {
        let folder = try folder(
            """
            version: 1
            tasks:
              build: {shell: "for i in $(seq 1 30); do echo step $i; done; echo 'main.c:3: error: expected ;' >&2; exit 2"}
              docs: {shell: "echo docs built"}
            """)
        let result = try await FlowrunBinary.run(
            ["run", "--events", "plain", "flow.yaml"], in: folder.url, environment: ["GITHUB_ACTIONS": githubActions ? "true" : ""])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let end = try #require(lines.lastIndex(of: "failed tasks, with the last lines of their output:"))
        let section = Array(lines[(end + 1)...])
        #expect(section.first?.hasPrefix("[build] failed in ") == true)
        #expect(Array(section.dropFirst().dropLast()) == (22...30).map { "[build] | step \($0)" } + ["[build] ! main.c:3: error: expected ;"])
        #expect(section.last?.hasPrefix("workflow flow failed in ") == true)
        #expect(!section.contains { $0.contains("docs built") })
    }

    /// Jenkins reads the report of a run stopped by Ctrl-C as not green: the cancelled task is
    /// an error, and the report is valid against the xUnit plugin's junit-10.xsd.
    @Test func anInterruptedRunsJUnitReportHasErrorsAndIsValid() async throws {
        let folder = try folder(
            """
            version: 1
            tasks:
              stop: {shell: "kill -INT $PPID; sleep 30"}
              later: {needs: stop, shell: "true"}
            """)
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "--junit", "junit.xml", "flow.yaml"], in: folder.url)
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        let report = folder.url.appendingPathComponent("junit.xml").path
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.contains(#"<testsuites name="flow" tests="2" failures="0" errors="1" time="#))
        #expect(text.contains(#"<error message="interrupted (SIGINT)" type="cancelled">"#))
        let check = try await validateJUnit([report])
        #expect(check.status == 0, "\(check.output)")
    }

    @Test func aFailedRunsJUnitReportIsValidWithTimestampAndHostname() async throws {
        let folder = try folder(
            """
            version: 1
            tasks:
              lint: {continue_on_error: true, shell: "exit 1"}
              build: {shell: "echo '<oops> & \\"quotes\\"'; exit 2"}
              test: {needs: build, shell: "true"}
            """)
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "--junit", "junit.xml", "flow.yaml"], in: folder.url)
        #expect(result.status == 1)
        let report = folder.url.appendingPathComponent("junit.xml").path
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.contains(#"failures="1" errors="0" skipped="1""#))
        #expect(text.contains(" timestamp=\"") && text.contains(" hostname=\""))
        let check = try await validateJUnit([report])
        #expect(check.status == 0, "\(check.output)")
    }
}
