import Foundation
import Testing

/// Fail-fast as the spec has it: once a task fails, nothing new starts, and that includes the
/// next attempt of a task that is retrying.
@Suite struct FailFastTests {
    @Test func noRetryStartsOnceFailFastHasStoppedTheRun() async throws {
        // flaky fails first, then waits the longest back-off (60 s) to retry; broken fails as
        // soon as flaky has. Were flaky retried, the run would last a minute or more.
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            tasks:
              flaky: {retries: 2, retry_delay: 60s, shell: 'touch flaky-failed; exit 1'}
              broken: {shell: 'until [ -e flaky-failed ]; do sleep 0.02; done; exit 1'}
              after: {needs: flaky, shell: 'echo never'}

            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(result.status == 1, "\(result.stderr)")
        let events = try EventStream(result.stdout)
        #expect(events.named("task.started").filter { $0.task == "flaky" }.count == 1)
        let failed = try #require(events.named("task.failed").first { $0.task == "flaky" })
        #expect(failed["attempts"] as? Int == 1)
        #expect(events.named("task.skipped").first { $0.task == "after" } != nil)
        let finished = try #require(events.named("workflow.finished").first)
        #expect(finished["status"] as? String == "failed")
    }
}
