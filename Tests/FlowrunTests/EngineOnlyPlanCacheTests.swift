import Foundation
import Testing

/// `--engine-only` (bench/: the engine alone, every action a no-op) takes its plan from the
/// compiled-plan cache as any run does, so that its wall time is the engine's rather than the
/// YAML's; an edit of the file is still seen.
@Suite struct EngineOnlyPlanCacheTests {
    static let workflow = """
        version: 1
        tasks:
          a: {shell: 'exit 1'}
          b: {needs: [a], shell: 'exit 1'}

        """

    func run(_ folder: WorkflowFolder) async throws -> [String] {
        let result = try await FlowrunBinary.run(["run", "--engine-only", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr == "")
        // The tasks that succeeded, in order: no shell ran (`exit 1` would have failed them).
        return result.stdout.split(separator: "\n").compactMap { line in
            guard line.contains("\"event\":\"task.succeeded\""), let range = line.range(of: "\"task\":\"") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    @Test func theEngineAloneKeepsAndReadsTheCompiledPlanAndSeesAnEdit() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        #expect(try await run(folder) == ["a", "b"])
        let cache = try #require(folder.planCacheFile, "the first run keeps its plan in the state folder its record made")
        let kept = WorkflowFolder.inode(cache)
        #expect(try await run(folder) == ["a", "b"])
        #expect(WorkflowFolder.inode(cache) == kept, "a run of an unchanged workflow reads the cache and does not write it again")

        try folder.write("flow.yaml", Self.workflow + "  c: {needs: [b], shell: 'exit 1'}\n")
        #expect(try await run(folder) == ["a", "b", "c"])
    }

    /// No task ran: the run leaves no record for `runs`, `logs` or `--resume` to read, only its plan.
    @Test func theEngineAloneLeavesNoRunRecord() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        #expect(try await run(folder) == ["a", "b"])
        #expect(folder.planCacheFile != nil)
        let runs = folder.url.appendingPathComponent(".flowrun/runs").path
        let recorded = FileManager.default.enumerator(atPath: runs)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".jsonl") } ?? []
        #expect(recorded == [])
    }
}
