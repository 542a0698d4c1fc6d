import FlowFiles
import FlowLoading
import FlowPlanning
import Foundation
import Testing

@testable import FlowState

/// A success held until its files settle (git's racy rule), then Ctrl-C: the task had finished
/// before it, so its success is recorded. Its files were read again with Ctrl-C's stop, which
/// gave up, and the task ran again next time (`resumepeer.py` after `kill-int` steps).
@Suite struct SettledAfterCtrlCTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("settled-after-ctrl-c-\(UUID().uuidString)").path

    @Test func aSuccessHeldForItsStampsIsRecordedAfterCtrlC() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let yaml = "version: 1\ntasks:\n  t: {inputs: [\(base)/in], outputs: [\(base)/out], shell: 'make t'}\n"
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: base + "/flow.yaml"))
        let loaded = WorkflowLoader.load(path: base + "/flow.yaml")
        let workflow = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        let states = { TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml") }
        try Data("input".utf8).write(to: URL(fileURLWithPath: base + "/in"))

        let check = UpToDateCheck(plan: plan, states: states(), force: false)
        #expect(check.skipReason(for: 0) == nil)
        try Data("made".utf8).write(to: URL(fileURLWithPath: base + "/out"))
        // Stamped 50 ms ahead: racy when hashed, however slow this machine, so the success is held.
        let ahead = Date(timeIntervalSince1970: Double(FileStatus.clockNanoseconds) / 1e9 + 0.05)
        try FileManager.default.setAttributes([.modificationDate: ahead], ofItemAtPath: base + "/out")
        check.taskSucceeded(0)
        check.stopChecks()  // Ctrl-C
        check.finish()
        #expect(check.writeFailure == nil)

        let next = UpToDateCheck(plan: plan, states: states(), force: false)
        defer { next.finish() }
        #expect(next.skipReason(for: 0) == UpToDateCheck.reason)
    }
}
