import Foundation
import Testing

/// `FLOWRUN_FAILED_NEEDS`: a `when: failure` task learns which of its needs failed.
@Suite struct FailedNeedsTests {
    @Test func aFailureTaskGetsTheIdsOfItsNeedsThatFailed() async throws {
        let folder = try TemporaryFolder()
        try Data(
            """
            version: 1
            fail_fast: false
            tasks:
              ok: {shell: "true"}
              lint: {shell: "exit 3"}
              unit: {shell: "exit 1", continue_on_error: true}
              after-lint: {needs: lint, shell: "true"}
              notify:
                needs: [ok, lint, unit, after-lint]
                when: failure
                shell: 'echo "[${FLOWRUN_FAILED_NEEDS?unset}]"'
              later:
                needs: [after-lint]
                when: failure
                shell: 'echo "[${FLOWRUN_FAILED_NEEDS?unset}]"'
              summary:
                needs: [lint]
                when: always
                shell: 'echo "[${FLOWRUN_FAILED_NEEDS-unset}]"'
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let events = try EventStream(result.stdout)
        #expect(events.finals["notify"] == "task.succeeded" && events.finals["later"] == "task.succeeded", "\(events.finals)")
        // lint failed, unit failed but was allowed to; after-lint was skipped, ok succeeded.
        #expect(events.lines(of: "notify") == ["[lint unit]"])
        // A need skipped because of an earlier failure did not fail itself: set, and empty.
        #expect(events.lines(of: "later") == ["[]"])
        // Only `when: failure` tasks get it.
        #expect(events.lines(of: "summary") == ["[unset]"])
    }
}
