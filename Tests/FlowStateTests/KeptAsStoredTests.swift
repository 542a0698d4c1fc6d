import FlowLoading
import FlowModel
import FlowPlanning
import Foundation
import Testing

@testable import FlowState

/// The no-op's path of the up-to-date check (`UpToDateCheck.isKeptAsStored`): in a plan large
/// enough that the files are stat'ed before the run (`FilesBeforeRun`), a task whose record and
/// stamps are all as its state kept them is found up to date from raw digests. Whatever that
/// path finds, the whole check would: a need added, a definition digest that differs, a
/// touched or edited file are each seen.
@Suite struct KeptAsStoredTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("kept-as-stored-\(UUID().uuidString)").path
    let disk = InMemoryFileSystem()

    /// `FilesBeforeRun.minimumTasks` tasks, each copying `/w/in/tI` to `/w/out/tI`; `tI` needs
    /// `t(I-1)` for odd I, and also the tasks `extraNeeds` gives it.
    func plan(extraNeeds: [Int: [Int]] = [:]) throws -> Plan {
        var text = "version: 1\ntasks:\n"
        for index in 0..<FilesBeforeRun.minimumTasks {
            let needs = (index % 2 == 1 ? [index - 1] : []) + (extraNeeds[index] ?? [])
            let list = needs.isEmpty ? "" : "needs: [\(needs.map { "t\($0)" }.joined(separator: ", "))], "
            text += "  t\(index): {\(list)inputs: [/w/in/t\(index)], outputs: [/w/out/t\(index)], shell: [cp, /w/in/t\(index), /w/out/t\(index)]}\n"
        }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: base + "/flow.yaml"))
        let loaded = WorkflowLoader.load(path: base + "/flow.yaml")
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        return try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
    }

    /// One run of `plan` in plan order (each task's needs come before it); the ids of those that ran.
    @discardableResult
    func run(_ plan: Plan, definitions: DefinitionDigests? = nil) -> [String] {
        let check = UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml"),
            force: false, fileSystem: disk, definitions: definitions)
        var ran: [String] = []
        for (index, task) in plan.tasks.enumerated() where check.skipReason(for: index) == nil {
            ran.append(task.id)
            disk.write("/w/out/" + task.id, "made from " + (disk.contents("/w/in/" + task.id) ?? "nothing"))
            check.taskSucceeded(index)
        }
        check.finish()
        #expect(check.writeFailure == nil)
        return ran
    }

    /// Every task built, then its files settled.
    func built() throws -> Plan {
        for index in 0..<FilesBeforeRun.minimumTasks { disk.write("/w/in/t\(index)", "input \(index)") }
        let plan = try plan()
        #expect(run(plan).count == plan.tasks.count)
        disk.advance(seconds: 10)
        #expect(run(plan) == [])
        disk.advance(seconds: 10)
        return plan
    }

    /// The definition digests of `plan` as the compiled plan gives them back (raw).
    func rawDefinitions(of plan: Plan, changing task: Int? = nil) throws -> DefinitionDigests {
        var bytes = DefinitionDigests.of(plan.tasks).bytes
        if let task { bytes[2 * task * TaskStateBytes.digestSize] ^= 1 }
        return try #require(bytes.withUnsafeBytes { DefinitionDigests(bytes: $0, count: plan.tasks.count) })
    }

    @Test func aNoOpFindsEveryTaskUpToDateAsItsStateKeptIt() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try built()
        let hashes = disk.hashes
        #expect(run(plan) == [])
        #expect(run(plan, definitions: try rawDefinitions(of: plan)) == [])
        #expect(disk.hashes == hashes, "nothing hashed")
        // A value read back from the state is the one the whole check takes.
        let check = UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml"),
            force: false, fileSystem: disk)
        // Dependents too: their needs' digest, which takes each need's value and outputs' digest, is found raw.
        #expect(check.keptBeforeRun.allSatisfy { $0 }, "each found up to date from its state, before the run")
        #expect(check.skipReason(for: 0) != nil && check.skipReason(for: 1) != nil)
        #expect(check.value(at: 1) == check.fingerprint(at: 1)?.value)
    }

    /// A need added to a task, itself and the need up to date: only the task's needs' digest
    /// differs from the kept one, and it runs.
    @Test func aNeedAddedMakesTheTaskRun() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        _ = try built()
        #expect(run(try plan(extraNeeds: [9: [4]])) == ["t9"])
    }

    /// Definition digests (raw, as the compiled plan keeps them) that are not the state's: the task runs.
    @Test func aDefinitionDigestThatDiffersMakesTheTaskRun() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try built()
        // t6 runs on the path with no statuses taken, as every task after a run: t7 too, its
        // need's fingerprint being another.
        #expect(run(plan, definitions: try rawDefinitions(of: plan, changing: 6)) == ["t6", "t7"])
    }

    /// A need's input touched (a new stamp, the same contents): the need is up to date with its
    /// stamps kept anew (not as stored), and its dependent, whose needs' digest takes that need's
    /// value as text, is up to date too; an edited input is seen.
    @Test func aTouchedNeedLeavesItsDependentUpToDateAndAnEditIsSeen() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try built()
        disk.write("/w/in/t2", "input 2")
        disk.advance(seconds: 10)
        #expect(run(plan) == [])
        disk.advance(seconds: 10)
        #expect(run(plan) == [])
        disk.write("/w/in/t4", "edited")
        disk.advance(seconds: 10)
        #expect(run(plan) == ["t4", "t5"])
    }

    /// The check before the run reads the state file in plan order and lets its pages go as it
    /// goes: after it, and after the engine has asked for every task, little of a file of several
    /// megabytes is in the process's memory (the no-op's peak, issue 23).
    @Test(.enabled(if: ChunkedWork.cores > 1, "the statuses are taken before the run on more than one core only"))
    func theCheckBeforeTheRunLeavesLittleOfTheStateFileInMemory() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try built()
        let states = TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: states.path)[.size] as? Int)
        #expect(size > 2 * TaskStates.releasePiece)
        let check = UpToDateCheck(plan: plan, states: states, force: false, fileSystem: disk)
        #expect(try #require(try TaskStatesPagesTests.residentBytes(ofMappingOf: states.path)) <= TaskStates.releasePiece)
        #expect(plan.tasks.indices.allSatisfy { check.skipReason(for: $0) != nil })
        #expect(try #require(try TaskStatesPagesTests.residentBytes(ofMappingOf: states.path)) <= TaskStates.releasePiece)
        // A value asked for later is read back from the file.
        #expect(check.value(at: 1) == check.fingerprint(at: 1)?.value)
    }
}
