import FlowFiles
import FlowLoading
import FlowPlanning
import Foundation
import Testing

@testable import FlowState

/// Ctrl-C during the up-to-date check (`stopChecks()`, from the engine's cancel): a check cut
/// short keeps nothing of what it found, so the state stays as it was, and nothing is recorded
/// from walks it cut short.
@Suite struct UpToDateStopTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("up-to-date-stop-\(UUID().uuidString)").path
    let disk = InMemoryFileSystem()

    /// `build` reads the files of `/w/parts/*` and writes `/w/out/all`.
    func plan() throws -> Plan {
        let text = "version: 1\ntasks:\n  build: {inputs: ['/w/parts/*'], outputs: [/w/out/all], shell: 'cat /w/parts/* > /w/out/all'}\n"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: base + "/flow.yaml"))
        let loaded = WorkflowLoader.load(path: base + "/flow.yaml")
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        return try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
    }

    func check(_ plan: Plan) -> UpToDateCheck {
        UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml"),
            force: false, fileSystem: disk)
    }

    /// One run in which `build` runs and succeeds.
    func build(_ plan: Plan) {
        let run = check(plan)
        #expect(run.skipReason(for: 0) == nil)
        disk.write("/w/out/all", "all parts")
        run.taskSucceeded(0)
        run.finish()
        #expect(run.writeFailure == nil)
    }

    @Test func aCheckCutShortIsNoSkipAndLeavesTheTasksStateAsItWas() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        for index in 0..<3 { disk.write("/w/parts/\(index)", "part \(index)") }
        let plan = try plan()
        build(plan)
        disk.advance(seconds: 10)

        let stopped = check(plan)
        disk.onWalk = { [stopped] _ in stopped.stopChecks() }  // Ctrl-C mid-walk
        #expect(stopped.skipReason(for: 0) == nil, "not found up to date from a walk cut short")
        stopped.finish()
        disk.onWalk = nil

        let next = check(plan)
        #expect(next.skipReason(for: 0) == UpToDateCheck.reason, "its state was kept: up to date on the next run")
        next.finish()
    }

    @Test func aSuccessWhoseWalkWasCutShortIsNotRecorded() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        for index in 0..<3 { disk.write("/w/parts/\(index)", "part \(index)") }
        let plan = try plan()
        build(plan)
        disk.advance(seconds: 10)
        disk.write("/w/parts/0", "part 0, edited")
        disk.advance(seconds: 10)

        let run = check(plan)
        #expect(run.skipReason(for: 0) == nil)
        disk.write("/w/out/all", "all parts, edited")
        disk.onWalk = { [run] _ in run.stopChecks() }  // Ctrl-C as the task ends
        run.taskSucceeded(0)
        run.finish()
        disk.onWalk = nil

        let next = check(plan)
        #expect(next.skipReason(for: 0) == nil, "runs again: its success was not recorded from a walk cut short")
        next.finish()
    }

    /// A walk of the real disk gives up once asked, at the next name.
    @Test func aRealWalkAskedToStopFindsNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        for folder in 0..<3 {
            try FileManager.default.createDirectory(atPath: base + "/big/\(folder)", withIntermediateDirectories: true)
            for file in 0..<20 { try Data("x".utf8).write(to: URL(fileURLWithPath: base + "/big/\(folder)/\(file)")) }
        }
        let stop = SetOnceFlag()
        let disk = LocalFileSystem(stop: stop)
        #expect(disk.files(matching: base + "/big/**").count == 60)
        #expect(disk.hash(of: base + "/big/0/0") != nil)
        stop.set()
        #expect(disk.files(matching: base + "/big/**").isEmpty)
        #expect(PathGlob.files(matching: base + "/big/**", until: stop) == nil)
        #expect(disk.hash(of: base + "/big/0/0") == nil)
    }
}
