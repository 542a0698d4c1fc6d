import Foundation
import Glibc
import Testing

/// `flowrun runs`, `flowrun logs` and `flowrun report` while a run is still going (in another
/// terminal, or a CI step that looks at its own run): its record has no end yet, as a killed
/// run's has none, and all said `interrupted` / "was interrupted" of a run that was running fine.
@Suite struct RunningRunTests {
    @Test func aRunStillGoingIsShownAsRunningNotInterrupted() async throws {
        let folder = try TemporaryFolder()
        let gate = folder.url.appendingPathComponent("gate").path
        #expect(mkfifo(gate, 0o600) == 0)
        try Data(
            """
            version: 1
            tasks:
              build: {shell: "echo compiled"}
              wait: {needs: build, shell: 'echo waiting; read line < gate; echo went'}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let run = try LiveRun(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        #expect(await run.waitFor("[wait] | waiting\n"))
        // The record gets its events within 50 ms of them: wait until it holds the task's start.
        #expect(
            await JobControlTests.eventually {
                let logs = try? String(contentsOfFile: Self.record(in: folder) ?? "", encoding: .utf8)
                return logs?.contains(#""event":"task.output","task":"wait""#) == true
            })

        let listed = try await FlowrunBinary.run(["runs", "--json", "flow.yaml"], in: folder.url)
        let runs = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(runs.first?["result"] as? String == "running", "\(listed.stdout)")
        #expect(runs.first?["ended"] is NSNull, "\(listed.stdout)")
        let table = try await FlowrunBinary.run(["runs", "flow.yaml"], in: folder.url)
        #expect(table.stdout.contains(" running "), "\(table.stdout)")
        let logs = try await FlowrunBinary.run(["logs"], in: folder.url)
        #expect(logs.stdout.contains("[wait] | waiting\n"), "\(logs.stdout)")
        #expect(logs.stdout.contains("is still running"), "\(logs.stdout)")
        #expect(!logs.stdout.contains("interrupted"), "\(logs.stdout)")
        // The report agrees: the run and its open task are running, not interrupted or killed.
        let summary = try await FlowrunBinary.run(["report", "--markdown", "-"], in: folder.url)
        #expect(summary.stdout.hasPrefix("### ⏳ flowrun: ") && summary.stdout.contains(" running for "), "\(summary.stdout)")
        #expect(!summary.stdout.contains("interrupted"), "\(summary.stdout)")
        let trace = try await FlowrunBinary.run(["report", "--trace", "-"], in: folder.url)
        let traced = try #require(try JSONSerialization.jsonObject(with: Data(trace.stdout.utf8)) as? [String: Any])
        #expect((traced["otherData"] as? [String: Any])?["result"] as? String == "running", "\(trace.stdout)")
        let slices = (traced["traceEvents"] as? [[String: Any]] ?? []).compactMap { $0["args"] as? [String: Any] }
        #expect(slices.first { $0["task"] as? String == "wait" }?["result"] as? String == "running", "\(trace.stdout)")
        let page = try await FlowrunBinary.run(["report", "--html", "-"], in: folder.url)
        #expect(page.stdout.contains(#""result":"running""#), "\(page.stdout.prefix(2000))")
        #expect(page.stdout.contains(#"["wait","running""#), "\(page.stdout.prefix(2000))")

        var writer: Int32 = -1
        #expect(
            await JobControlTests.eventually {
                writer = open(gate, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                return writer >= 0
            })
        #expect(write(writer, "go\n", 3) == 3)
        close(writer)
        #expect(await run.wait() == 0)
        let after = try await FlowrunBinary.run(["runs", "--json", "flow.yaml"], in: folder.url)
        let ended = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [[String: Any]])
        #expect(ended.first?["result"] as? String == "succeeded", "\(after.stdout)")
    }

    /// The one run record under `.flowrun/runs/`.
    static func record(in folder: TemporaryFolder) -> String? {
        let runs = folder.url.appendingPathComponent(".flowrun/runs").path
        for workflow in (try? FileManager.default.contentsOfDirectory(atPath: runs)) ?? [] {
            if let name = (try? FileManager.default.contentsOfDirectory(atPath: "\(runs)/\(workflow)"))?.first(where: { $0.hasSuffix(".jsonl") }) {
                return "\(runs)/\(workflow)/\(name)"
            }
        }
        return nil
    }
}
