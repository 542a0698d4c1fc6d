import Foundation
import Glibc
import Testing

/// The record's batches, and a plain log's sent to a file, are written on the run's loop
/// (`LoopFlushTimer`): a line still reaches the file while its task runs and the loop has nothing
/// else to do, and every line is there at the end.
@Suite struct LoopFlushTests {
    /// The text of every run record in the state folder beside the workflow.
    static func records(in folder: URL) -> String {
        let runs = folder.appendingPathComponent(".flowrun/runs")
        let files = FileManager.default.enumerator(at: runs, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return files.filter { $0.pathExtension == "jsonl" }.compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined()
    }

    /// Waits until `condition` holds, for at most 120 s (a hang guard).
    static func wait(until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func aPlainLogInAFileAndTheRecordShowALineWhileItsTaskStillRuns() async throws {
        let folder = try TemporaryFolder()
        let workflow = """
            version: 1
            tasks:
              count: {shell: 'for i in $(seq 1 300); do echo line-$i; done'}
              hold: {needs: count, shell: 'echo waiting; until [ -e release ]; do sleep 0.05; done; echo released'}
            """
        try Data(workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let log = folder.url.appendingPathComponent("log.txt")
        let run = try LiveRun(
            ["-c", "exec \"$0\" run --events plain flow.yaml > log.txt", FlowrunBinary.url.path], in: folder.url, executable: "/bin/sh")
        func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        // The task waits for a file that only comes once its line is in both files.
        #expect(await Self.wait { logText().contains("[hold] | waiting\n") })
        #expect(await Self.wait { Self.records(in: folder.url).contains("\"line\":\"waiting\"") })
        try Data().write(to: folder.url.appendingPathComponent("release"))
        #expect(await run.wait() == 0)
        let lines = logText().split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("[count] | ") } == (1...300).map { "[count] | line-\($0)" })
        #expect(lines.last?.hasPrefix("workflow ") == true && lines.last?.contains("succeeded") == true)
        let logs = try await FlowrunBinary.run(["logs", "hold"], in: folder.url)
        #expect(logs.stdout == "waiting\nreleased\n")
        let count = try await FlowrunBinary.run(["logs", "count"], in: folder.url)
        #expect(count.stdout == (1...300).map { "line-\($0)\n" }.joined())
    }
}
