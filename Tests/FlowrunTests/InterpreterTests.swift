import Foundation
import Testing

/// `interpreter:` picks what runs a `shell` string; the default stays `sh -e -c`.
@Suite struct InterpreterTests {
    /// Each task's status, from a run of `tasks` (each `ID: {FIELDS}`) with `fail_fast: false`.
    func finals(_ tasks: [String], defaults: String = "") async throws -> [String: String] {
        let text = "version: 1\nfail_fast: false\n\(defaults)tasks:\n" + tasks.map { "  \($0)\n" }.joined()
        let (_, events, _) = try await RunTests().run(text)
        return events.finals
    }

    @Test func shHasErrexitWithoutPipefailAndBashHasBoth() async throws {
        let finals = try await finals([
            "sh-pipe: {shell: 'false | cat'}",
            "sh-errexit: {shell: 'false; echo after'}",
            "bash-pipe: {interpreter: bash, shell: 'false | cat'}",
            "bash-errexit: {interpreter: bash, shell: 'false; echo after'}",
            "bash-fine: {interpreter: bash, shell: 'true | cat; [[ -n x ]]'}",
        ])
        #expect(finals["sh-pipe"] == "task.succeeded")
        #expect(finals["sh-errexit"] == "task.failed")
        #expect(finals["bash-pipe"] == "task.failed")
        #expect(finals["bash-errexit"] == "task.failed")
        #expect(finals["bash-fine"] == "task.succeeded")
    }

    @Test func pythonAndAListRunTheScriptAndSeeTheEnvironment() async throws {
        let (result, events, _) = try await RunTests().run(
            """
            version: 1
            env: {GREETING: hello}
            tasks:
              py:
                interpreter: python
                shell: |
                  import os, sys
                  print(os.environ["GREETING"], sys.version_info[0])
              words:
                interpreter: [sh, -c]
                shell: echo "$GREETING from $0"
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(events.lines(of: "py") == ["hello 3"])
        // The script is the last word: `sh -c SCRIPT`, with no $0 after it, so $0 is sh.
        #expect(events.lines(of: "words") == ["hello from sh"])
    }

    @Test func theDefaultsInterpreterAppliesToScriptsAndLeavesArgvAlone() async throws {
        let finals = try await finals(
            ["pipe: {shell: 'false | cat'}", "argv: {shell: ['true']}", "own: {interpreter: sh, shell: 'false | cat'}"],
            defaults: "defaults: {interpreter: bash}\n")
        #expect(finals == ["pipe": "task.failed", "argv": "task.succeeded", "own": "task.succeeded"])
    }

    @Test func dryRunShowsTheInterpreter() async throws {
        let folder = try WorkflowFolder("version: 1\ntasks:\n  t: {interpreter: bash, shell: 'make | tee log'}\n")
        let result = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: folder.url)
        #expect(result.status == 0)
        #expect(result.stdout.contains("       interpreter: bash --noprofile --norc -eo pipefail -c SCRIPT\n"), "\(result.stdout)")
    }
}
