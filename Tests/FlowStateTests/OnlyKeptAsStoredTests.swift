import FlowLoading
import FlowModel
import FlowPlanning
import Foundation
import Testing

@testable import FlowState

/// `run --only` on the no-op's path (`UpToDateCheck.keptAsStoredBeforeRun`): a task whose need
/// is taken as done is found up to date before the run while that need's outputs keep the stamps
/// its state kept; a touched output leaves it to the whole check (which hashes, and still finds
/// it up to date), an edited one makes it run.
@Suite struct OnlyKeptAsStoredTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("only-kept-\(UUID().uuidString)").path
    let disk = InMemoryFileSystem()
    /// Enough tasks under `--only` for the files to be stat'ed before the run.
    let count = FilesBeforeRun.minimumTasks

    /// `base` makes `/w/out/base`; each `tI` needs it and copies `/w/in/tI` to `/w/out/tI`.
    /// With `only`, the `tI` alone: `base` is taken as done.
    func plan(only: Bool) throws -> Plan {
        var text = "version: 1\ntasks:\n  base: {outputs: [/w/out/base], shell: 'make base'}\n"
        for index in 1...count {
            text += "  t\(index): {needs: [base], inputs: [/w/in/t\(index)], outputs: [/w/out/t\(index)], shell: 'make t\(index)'}\n"
        }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: base + "/flow.yaml"))
        let loaded = WorkflowLoader.load(path: base + "/flow.yaml")
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        var options = PlanningOptions()
        if only {
            options.targets = (1...count).map { "t\($0)" }
            options.onlyTargets = true
        }
        return try #require(try Planner.plan(workflow, options: options).plan)
    }

    func check(_ plan: Plan) -> UpToDateCheck {
        UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml"),
            force: false, fileSystem: disk)
    }

    /// One run of `plan` in plan order; the ids of the tasks that ran.
    @discardableResult
    func run(_ plan: Plan) -> [String] {
        let check = check(plan)
        var ran: [String] = []
        for (index, task) in plan.tasks.enumerated() where check.skipReason(for: index) == nil {
            ran.append(task.id)
            disk.write("/w/out/" + task.id, "made")
            check.taskSucceeded(index)
        }
        check.finish()
        #expect(check.writeFailure == nil)
        return ran
    }

    /// The whole workflow built, its files settled, and the `--only` plan.
    func built() throws -> Plan {
        for index in 1...count { disk.write("/w/in/t\(index)", "input \(index)") }
        let whole = try plan(only: false)
        #expect(run(whole).count == whole.tasks.count)
        disk.advance(seconds: 10)
        // Run again: the stamps it keeps then were hashed once the clock had passed them.
        #expect(run(whole) == [])
        disk.advance(seconds: 10)
        return try plan(only: true)
    }

    @Test func aTaskWhoseNeedIsTakenAsDoneIsFoundUpToDateBeforeTheRun() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let only = try built()
        #expect(only.tasks.count == count)
        let hashes = disk.hashes
        let check = check(only)
        #expect(check.keptBeforeRun.allSatisfy { $0 }, "each found up to date from its state, before the run")
        #expect(only.tasks.indices.allSatisfy { check.skipReason(for: $0) == UpToDateCheck.reason })
        check.finish()
        #expect(disk.hashes == hashes, "nothing hashed")
    }

    @Test func aTouchedNeedTakenAsDoneIsLeftToTheWholeCheckAndAnEditedOneRunsItsDependents() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let only = try built()
        // Touched: a new stamp, the same contents.
        disk.setStatus("/w/out/base", modifiedNanoseconds: disk.nowNanoseconds, changedNanoseconds: disk.nowNanoseconds)
        disk.advance(seconds: 10)
        let check = check(only)
        #expect(check.keptBeforeRun.allSatisfy { !$0 }, "its stamp does not stand: left to the whole check")
        check.finish()
        #expect(run(only) == [], "the whole check hashes it: the same contents, up to date")

        disk.write("/w/out/base", "edited")
        disk.advance(seconds: 10)
        #expect(run(only).count == count, "a need changed: each task that needs it runs")
    }
}
