import FlowLoading
import FlowPlanning
import Foundation
import Testing

@testable import FlowState

/// Compute once (issue 23): the digest a download computed of its body as it wrote it
/// (`StreamedDigests`) is the one its success keeps and the one its dependent's check takes for
/// the same file as input; neither reads the file back to hash it.
@Suite struct DownloadComputedOnceTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("computed-once-\(UUID().uuidString)").path
    let disk = InMemoryFileSystem()

    @Test func aDownloadsOutputConsumedByALaterTaskIsNotHashedAgain() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let text = """
            version: 1
            tasks:
              fetch: {download: {url: "http://127.0.0.1:9/file.bin", to: /w/out/file.bin}}
              use: {needs: [fetch], inputs: [/w/out/file.bin], outputs: [/w/out/used], shell: [cp, /w/out/file.bin, /w/out/used]}

            """
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: base + "/flow.yaml"))
        let loaded = WorkflowLoader.load(path: base + "/flow.yaml")
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        let check = UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml"),
            force: false, fileSystem: disk)

        // A clock between whole seconds, as a file system with nanosecond stamps has it (a stamp
        // of whole seconds would read as a 2-second file system's, `FileStatus.granularityNanoseconds`).
        disk.advance(seconds: 0.123_456_789)
        #expect(check.skipReason(for: 0) == nil)
        // The download writes its body, flushes and renames it (time passes), and notes the
        // digest it computed as the bytes went by.
        disk.write("/w/out/file.bin", "the body")
        disk.advance(seconds: 0.1)
        disk.noteStreamedDigest(of: "/w/out/file.bin")
        check.taskSucceeded(0)
        disk.advance(seconds: 1)
        #expect(check.skipReason(for: 1) == nil)
        disk.write("/w/out/used", "the body")
        disk.advance(seconds: 0.1)
        disk.noteStreamedDigest(of: "/w/out/used")
        check.taskSucceeded(1)
        check.finish()
        #expect(check.writeFailure == nil)
        #expect(!disk.hashedPaths.contains("/w/out/file.bin"), "\(disk.hashedPaths)")

        // The next run finds both up to date from their stamps, hashing nothing.
        disk.advance(seconds: 10)
        let next = UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml"),
            force: false, fileSystem: disk)
        #expect(next.skipReason(for: 0) == UpToDateCheck.reason)
        #expect(next.skipReason(for: 1) == UpToDateCheck.reason)
        next.finish()
        #expect(disk.hashes == 0, "\(disk.hashedPaths)")
    }
}
