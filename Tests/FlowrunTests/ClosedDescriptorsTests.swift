import Foundation
import Testing

/// flowrun started with stdin, stdout or stderr closed (`<&-`, `>&-`, `2>&-`, as a cron job or
/// a careless script starts it): nothing is written into a file flowrun opens, and it does
/// not crash.
@Suite struct ClosedDescriptorsTests {
    static let workflow = """
        version: 1
        tasks:
          a: {shell: echo hi}
        """

    func folder(_ workflow: String = Self.workflow) throws -> WorkflowFolder {
        try WorkflowFolder(workflow)
    }

    @Test func aClosedStandardErrorDoesNotCrashValidate() async throws {
        let folder = try folder("version: 1\ntasks:\n  a: {shell: echo, neds: [b]}\n")
        let result = try await ShellSession.run("bash", "flowrun validate flow.yaml 2>&-; echo \"status=$?\"", in: folder.url)
        #expect(result.stdout == "status=2\n")
    }

    @Test func aClosedStandardOutputIsAFailedWriteAndNeverLandsInTheLockFile() async throws {
        let folder = try folder()
        let result = try await ShellSession.run("bash", "flowrun flow.yaml >&-; echo \"status=$?\" >&2", in: folder.url)
        #expect(result.stderr.contains("flowrun: error: cannot write standard output: Bad file descriptor"))
        #expect(result.stderr.hasSuffix("status=1\n"))
        let lock = try folder.read(".flowrun/lock")
        #expect(!lock.contains("workflow"))
        #expect(!lock.contains("[a]"))
    }

    @Test func closedStandardInputAndErrorDoNotReachTheTasksOutput() async throws {
        let folder = try folder()
        let result = try await ShellSession.run("bash", "flowrun flow.yaml --no-record --events jsonl <&- 2>&-", in: folder.url)
        let outputs = result.stdout.split(separator: "\n").filter { $0.contains("\"task.output\"") }
        #expect(outputs.count == 1)
        #expect(outputs.first?.hasSuffix("\"stream\":\"stdout\",\"line\":\"hi\"}") == true)
    }
}
