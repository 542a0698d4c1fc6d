import Foundation
import Testing

/// `--dry-run` numbers the tasks in the order a run at -j 1 starts them, as `make -n` lists
/// commands in the order make would run them.
@Suite struct DryRunOrderTests {
    /// The task ids of a `--dry-run` listing, by their numbers (which must run 1, 2, 3...).
    func numbered(_ plan: String) throws -> [String] {
        var ids: [String] = []
        for line in plan.split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
            let parts = line.dropFirst(2).split(separator: " ", maxSplits: 2)
            #expect(parts.count >= 2 && parts[0] == "\(ids.count + 1).", "numbering: \(line)")
            ids.append(String(parts[1]))
        }
        return ids
    }

    /// The dry run's order, and the order of `task.started` in a real `-j 1` run of the same file.
    func orders(of file: String, in folder: URL) async throws -> (dryRun: [String], run: [String], skipped: Set<String>) {
        let plan = try await FlowrunBinary.run(["run", "--dry-run", file], in: folder)
        #expect(plan.status == 0, "\(plan.stderr)")
        let run = try await FlowrunBinary.run(["run", "-j", "1", "--events", "jsonl", file], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let events = try EventStream(run.stdout)
        return (try numbered(plan.stdout), events.startOrder, Set(events.named("task.skipped").compactMap(\.task)))
    }

    func orders(of text: String) async throws -> (dryRun: [String], run: [String], skipped: Set<String>) {
        let folder = try TemporaryFolder()
        try Data(text.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return try await orders(of: "flow.yaml", in: folder.url)
    }

    @Test func queuesYAMLIsNumberedAsTheRunStartsIt() async throws {
        let (dryRun, run, _) = try await orders(of: "workflows/queues.yaml", in: FlowrunBinary.repositoryRoot)
        #expect(dryRun == run)
        #expect(dryRun.first == "fetch-index")
        #expect(dryRun == ["fetch-index", "write-cache", "resize", "encode", "flush-logs", "thumbnails", "report"])
    }

    @Test func prioritiesAcrossQueuesAndNeedsGiveTheRunsOrder() async throws {
        let text = """
            version: 1
            concurrency: 3
            queues:
              net: {concurrency: 2}
              disk: {concurrency: 1}
            tasks:
              slow-mirror: {queue: net, priority: very-low, shell: "true"}
              index: {queue: net, priority: high, shell: "true"}
              unpack: {queue: disk, needs: [index], priority: very-high, shell: "true"}
              docs: {priority: low, shell: "true"}
              lint: {shell: "true"}
              checksum: {queue: disk, needs: [slow-mirror], priority: high, shell: "true"}
              package: {needs: [unpack, checksum, lint], priority: very-high, shell: "true"}
              notes: {queue: net, shell: "true"}
            """
        let (dryRun, run, _) = try await orders(of: text)
        #expect(dryRun == run)
        #expect(dryRun == ["index", "unpack", "lint", "notes", "docs", "slow-mirror", "checksum", "package"])
    }

    @Test func aChainWrittenBackwardsIsNumberedFromItsStart() async throws {
        let text = """
            version: 1
            tasks:
              deploy: {needs: [test], priority: very-high, shell: "true"}
              test: {needs: [build], shell: "true"}
              build: {priority: very-low, shell: "true"}
              docs: {shell: "true"}
            """
        let (dryRun, run, _) = try await orders(of: text)
        #expect(dryRun == run)
        #expect(dryRun == ["docs", "build", "test", "deploy"])
    }

    /// A `when: failure` task is listed where the run decides on it; a run that succeeds skips it.
    @Test func cleanupTasksKeepTheirPlaceAndSkippedOnesAreListedWhereDecided() async throws {
        let text = """
            version: 1
            tasks:
              build: {priority: low, shell: "true"}
              test: {needs: [build], shell: "true"}
              report-failure: {needs: [test], when: failure, priority: very-high, shell: "true"}
              cleanup: {needs: [test], when: always, shell: "true"}
              lint: {shell: "true"}
            """
        let (dryRun, run, skipped) = try await orders(of: text)
        #expect(skipped == ["report-failure"])
        #expect(dryRun.filter { !skipped.contains($0) } == run)
        #expect(dryRun == ["lint", "build", "test", "report-failure", "cleanup"])
    }

    @Test func thePlanSaysWhatTheOrderIsAndThatWavesAreTheParallelView() async throws {
        let result = try await FlowrunBinary.run(["run", "--dry-run", "workflows/queues.yaml"], in: FlowrunBinary.repositoryRoot)
        #expect(result.stdout.contains("order: as a run at -j 1 starts them"))
        #expect(result.stdout.contains("waves: the parallel view"))
        #expect(result.stdout.contains("  1. fetch-index  shell  wave 1\n"))
        #expect(result.stdout.contains("  7. report  shell  wave 2  # not in a queue"))
    }
}
