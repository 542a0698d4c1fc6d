import Foundation
import Testing

/// A task state written by the flowrun before (state format 2, which kept each file's SHA-256
/// where this one keeps its XXH3-128) is not read: the run says so on stderr, runs its tasks
/// once, and keeps them in this format, so the run after finds them up to date.
@Suite struct OlderStateVersionTests {
    @Test func aStateOfTheVersionBeforeIsIgnoredSaidSoAndItsTasksRunOnce() async throws {
        let project = try UpToDateTests.chainProject()
        #expect(try await project.run().ran == ["a", "b", "c", "d"])
        let state = project.url.appendingPathComponent(".flowrun")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: state.path).first { $0.hasPrefix("tasks-") && $0.hasSuffix(".bin") })
        let file = state.appendingPathComponent(name)
        var bytes = try Data(contentsOf: file)
        let versionAt = "flowrun-tasks\n".utf8.count
        #expect(bytes[versionAt] == 3)
        bytes[versionAt] = 2
        try bytes.write(to: file)

        let rerun = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: project.url)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let ran = Set(try EventStream(rerun.stdout).named("task.started").compactMap(\.task))
        #expect(ran == ["a", "b", "c", "d"])
        #expect(
            rerun.stderr.contains("\(name) was written by another flowrun (state format 2; this one reads 3); it is ignored (its tasks run again)"),
            "\(rerun.stderr)")

        let after = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: project.url)
        #expect(after.status == 0)
        #expect(!after.stderr.contains("another flowrun"), "\(after.stderr)")
        #expect(try EventStream(after.stdout).named("task.started").isEmpty)
    }
}
