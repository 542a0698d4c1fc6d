import Foundation
import Testing

/// The README's tutorial: workflows/tutorial/{ci,data,release}.yaml run through the flowrun
/// binary, offline, as a user following it would, on a copy of workflows/ (they write to out/
/// beside themselves, and data.yaml reads ../assets/).
@Suite struct TutorialTests {
    /// A fresh copy of the repository's workflows/ folder, and the tutorial folder in it.
    func copyOfWorkflows() throws -> (folder: TemporaryFolder, tutorial: URL) {
        let folder = try TemporaryFolder()
        let copy = folder.url.appendingPathComponent("workflows")
        try FileManager.default.copyItem(at: FlowrunBinary.repositoryRoot.appendingPathComponent("workflows"), to: copy)
        // What a run in the repository left (its outputs, its records) would make tasks up to date.
        for left in ["tutorial/out", "tutorial/.flowrun"] { try? FileManager.default.removeItem(at: copy.appendingPathComponent(left)) }
        return (folder, copy.appendingPathComponent("tutorial"))
    }

    func text(_ url: URL) -> String? { try? String(contentsOf: url, encoding: .utf8) }

    @Test func theCIPipelineRunsEveryMatrixCombinationThenTheReport() async throws {
        let (folder, tutorial) = try copyOfWorkflows()
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "workflows/tutorial/ci.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let events = try EventStream(result.stdout)
        let tests = ["test[unit,debug]", "test[unit,release]", "test[integration,debug]", "test[integration,release]"]
        var expected = ["build": "task.succeeded", "report": "task.succeeded"]
        for id in tests { expected[id] = "task.succeeded" }
        #expect(events.finals == expected)
        #expect(events.startOrder.last == "report", "the report waits for every combination")
        #expect(
            text(tutorial.appendingPathComponent("out/ci/report.txt"))
                == "integration/debug passed\nintegration/release passed\nunit/debug passed\nunit/release passed\n")
    }

    @Test func theDataPipelineDownloadsUnpacksCombinesAndSums() async throws {
        let (folder, tutorial) = try copyOfWorkflows()
        let cache = ["FLOWRUN_CACHE_DIR": folder.url.appendingPathComponent("cache").path]  // not the user's
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "workflows/tutorial/data.yaml"], in: folder.url, environment: cache)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let events = try EventStream(result.stdout)
        #expect(events.finals == ["download": "task.succeeded", "unpack": "task.succeeded", "quarter": "task.succeeded", "totals": "task.succeeded"])
        let out = tutorial.appendingPathComponent("out/data")
        let months = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("months").path).sorted()
        #expect(months == ["2024-01.csv", "2024-02.csv", "2024-03.csv"], "strip_components dropped sales/")
        #expect(text(out.appendingPathComponent("quarter.csv")) == "north,120\nsouth,80\nnorth,95\nsouth,130\nnorth,110\nsouth,65\n")
        #expect(text(out.appendingPathComponent("totals.txt")) == "north 325\nsouth 275\n")
    }

    @Test func theReleasePackagesAfterTheGroupOfChecksAndCleansUp() async throws {
        let (folder, tutorial) = try copyOfWorkflows()
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "workflows/tutorial/release.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let events = try EventStream(result.stdout)
        #expect(events.finals.values.allSatisfy { $0 == "task.succeeded" } && events.finals.count == 6, "\(events.finals)")
        let release = tutorial.appendingPathComponent("out/release")
        let archive = release.appendingPathComponent("app-1.0.tar.gz").path
        let names = try await RunTests.python(["-c", "import sys, tarfile; print(*tarfile.open(sys.argv[1]).getnames())", archive])
        #expect(names.status == 0 && names.output == "out/release/scratch/app/VERSION out/release/scratch/app/run.sh\n", "\(names.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: release.path) == ["app-1.0.tar.gz"], "cleanup removed scratch/")
    }

    @Test func aFailedCheckSkipsThePackageButTheCleanupStillRuns() async throws {
        let (folder, tutorial) = try copyOfWorkflows()
        let result = try await FlowrunBinary.run(
            ["run", "--events", "jsonl", "workflows/tutorial/release.yaml", "--env", "FAIL=lint"], in: folder.url)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let events = try EventStream(result.stdout)
        #expect(events.finals["lint"] == "task.failed")
        #expect(events.finals["checks"] == "task.skipped" && events.finals["package"] == "task.skipped")
        #expect(events.finals["cleanup"] == "task.succeeded")
        let release = tutorial.appendingPathComponent("out/release")
        #expect(try FileManager.default.contentsOfDirectory(atPath: release.path) == [], "no package, and no scratch/ left")
    }
}
