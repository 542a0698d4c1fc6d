import FlowLoading
import FlowPlanning
import Foundation
import Testing

@testable import FlowState

/// The file a download's `file:` URL names is one of its inputs (`TaskDefinition.localSource`):
/// one file, never a folder. Taken as an `inputs:` path, a folder there was walked whole before
/// the download could fail on it: `file:///` walked the whole file system, unbounded by the
/// task's timeout, where curl fails at once.
@Suite struct FileURLSourceWalkTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("file-url-walk-\(UUID().uuidString)").path
    let disk = InMemoryFileSystem()

    func plan(tasks: String) throws -> Plan {
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try Data("version: 1\ntasks:\n\(tasks)".utf8).write(to: URL(fileURLWithPath: base + "/flow.yaml"))
        let loaded = WorkflowLoader.load(path: base + "/flow.yaml")
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        return try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
    }

    func check(_ plan: Plan) -> UpToDateCheck {
        UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml"),
            force: false, fileSystem: disk)
    }

    @Test func aFolderNamedByAFileURLIsNotWalked() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        for name in ["a", "b", "c"] { disk.write("/data/src/\(name)", name) }
        // A shell task's `inputs:` folder is walked as before: it stands for its files.
        let plan = try plan(
            tasks: """
                  get: {download: {url: 'file:///data/src', to: /w/got}}
                  use: {inputs: [/data/src], outputs: [/w/used], shell: 'true'}

                """)
        var walked: [String] = []
        disk.onWalk = { walked.append($0) }
        let run = check(plan)
        #expect(run.skipReason(for: 0) == nil, "the download runs, and fails on the folder")
        #expect(!walked.contains("/data/src"), "the download's source was walked as a folder: \(walked)")
        #expect(run.skipReason(for: 1) == nil)
        #expect(walked.contains("/data/src"), "an inputs: folder is still walked")
        run.finish()
    }
}
