import Foundation
import Glibc
import Testing

/// The plain log and the record are written in batches, a few dozen times a second: someone
/// watching a CI log (a pipe) still sees each line while the task that printed it runs, and at
/// the end every line is there, in order.
@Suite struct BatchedOutputTests {
    @Test func aPlainLogOnAPipeShowsALineWhileItsTaskStillRunsAndEveryLineInOrderAtTheEnd() async throws {
        let folder = try TemporaryFolder()
        let workflow = """
            version: 1
            tasks:
              count: {shell: 'for i in $(seq 1 300); do echo line-$i; done'}
              hold: {needs: count, shell: 'echo waiting; until [ -e release ]; do sleep 0.05; done; echo released'}
            """
        try Data(workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let run = try LiveRun(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        // The task waits for a file that only comes once its first line has been seen.
        #expect(await run.waitFor("[hold] | waiting\n"))
        try Data().write(to: folder.url.appendingPathComponent("release"))
        #expect(await run.wait() == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let counted = lines.filter { $0.hasPrefix("[count] | ") }
        #expect(counted == (1...300).map { "[count] | line-\($0)" })
        let order = [
            "[count] started (shell)", "[count] | line-300", "[count] succeeded in", "[hold] started (shell)", "[hold] | waiting", "[hold] | released",
        ]
        let positions = order.map { prefix in lines.firstIndex { $0.hasPrefix(prefix) } }
        #expect(positions.allSatisfy { $0 != nil }, "\(run.stdout)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect(lines.last?.hasPrefix("workflow ") == true && lines.last?.contains("succeeded") == true)
        // The record, written the same way, holds the run too.
        let logs = try await FlowrunBinary.run(["logs", "hold"], in: folder.url)
        #expect(logs.stdout == "waiting\nreleased\n")
    }
}
