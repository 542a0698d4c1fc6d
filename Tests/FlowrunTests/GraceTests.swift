import Foundation
import Testing

/// `--grace` with the real binary: the time a stopped attempt gets between SIGTERM and SIGKILL.
@Suite struct GraceTests {
    /// Before, a timed-out attempt got SIGKILL 10 s after SIGTERM whatever `--grace` said: a
    /// cleanup of 11 s was cut short. The trap writes its file once the cleanup is done. The
    /// grace is far above the 11 s, and under the run's 120 s hang guard (the run ends when the
    /// cleanup does): with 30 s, a loaded machine holding the trap back 19 s would fail it.
    @Test func aTimedOutTaskFinishesItsCleanupWithinTheGraceGiven() async throws {
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            tasks:
              cleans_up:
                timeout: 1s
                shell: |
                  trap 'sleep 11; echo cleaned > cleaned; exit 3' TERM
                  sleep 1000 & wait
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "--grace", "100", "flow.yaml"], in: folder.url)
        let events = try EventStream(result.stdout)
        #expect(result.status == 1)
        #expect(events.named("task.failed").first?["reason"] as? String == "timed out after 1s")
        let cleaned = try? String(contentsOf: folder.url.appendingPathComponent("cleaned"), encoding: .utf8)
        #expect(cleaned == "cleaned\n", "the cleanup was killed before it finished")
    }
}
