import Foundation
import Testing

/// A run in which no task ran (every task up to date) keeps a record of a few lines, its result
/// and counts, rather than an event per task; `runs`, `logs` and `--resume` read it as any other.
@Suite struct NoOpRecordTests {
    /// The lines of the newest run record of the project.
    func newestRecordLines(of project: UpToDateTests.Project) throws -> [Substring] {
        let runs = project.url.appendingPathComponent(".flowrun/runs")
        let folders = try FileManager.default.contentsOfDirectory(atPath: runs.path)
        let records = try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: runs.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".jsonl") }.map { "\(folder)/\($0)" }
        }
        let newest = try #require(records.max { ($0 as NSString).lastPathComponent < ($1 as NSString).lastPathComponent })
        let text = try String(contentsOf: runs.appendingPathComponent(newest), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    }

    @Test func aRunInWhichNoTaskRanRecordsItsResultAndCountsNotEachTask() async throws {
        let project = try UpToDateTests.chainProject()
        #expect(try await project.run().ran == ["a", "b", "c", "d"])
        #expect(try newestRecordLines(of: project).count > 8, "a run that ran tasks keeps their events")

        let noOp = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: project.url)
        #expect(noOp.status == 0, "\(noOp.stderr)")
        let lines = try newestRecordLines(of: project)
        #expect(lines.count == 4, "header, plan, start, end: \(lines)")
        #expect(lines.last?.contains("\"event\":\"workflow.finished\"") == true)
        #expect(!lines.contains { $0.contains("\"task\":\"a\"") }, "no line per task: \(lines)")

        let listed = try await FlowrunBinary.run(["runs", "--json", "flow.yaml"], in: project.url)
        let runs = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(runs.first?["result"] as? String == "succeeded")
        let counts = try #require(runs.first?["counts"] as? [String: Int])
        #expect(counts["up_to_date"] == 4 && counts["skipped"] == 4 && counts["succeeded"] == 0, "\(counts)")

        let logs = try await FlowrunBinary.run(["logs"], in: project.url)
        #expect(logs.status == 0, "\(logs.stderr)")
        #expect(logs.stdout == noOp.stdout)
        #expect(logs.stdout.contains("4 tasks up to date\n"), "\(logs.stdout)")
        let task = try await FlowrunBinary.run(["logs", "last", "a"], in: project.url)
        #expect(task.status == 2 && task.stderr.contains("no task ran in it"), "\(task.stderr)")

        // Resuming it keeps what is up to date; a changed task runs, and its run is kept whole.
        try project.write("src/d.txt", "changed\n")
        let resumed = try await project.run(["--resume"])
        #expect(resumed.ran == ["d"])
        #expect(resumed.upToDate == ["a", "b", "c"])
        let full = try newestRecordLines(of: project)
        #expect(full.contains { $0.contains("\"event\":\"task.skipped\"") && $0.contains("\"task\":\"a\"") }, "\(full)")
        #expect(try await FlowrunBinary.run(["logs", "--events", "jsonl"], in: project.url).stdout.contains("\"task\":\"d\""))
    }
}
