import FlowLoading
import FlowPlanning
import Foundation
import Testing

@testable import FlowState

/// The up-to-date check over the task state file, on the in-memory file system: a file whose
/// stamp stands is not hashed; one whose stamp moved, or that was racy when hashed, is; an
/// edited, deleted or added file is always seen; and each task finds its own state whatever the
/// order of the plan.
@Suite struct UpToDateStampTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("up-to-date-stamps-\(UUID().uuidString)").path
    let disk = InMemoryFileSystem()

    /// A task per name, copying `/w/in/NAME` to `/w/out/NAME`; `glob` adds `/w/parts/*` to each's inputs.
    func plan(_ names: [String], glob: Bool = false) throws -> Plan {
        try Self.copyPlan(names, glob: glob, writtenIn: base)
    }

    /// The plan of `plan(_:glob:)`, its workflow file written in `base` (SettledStampTests too).
    static func copyPlan(_ names: [String], glob: Bool = false, writtenIn base: String) throws -> Plan {
        let inputs = glob ? "[/w/in/NAME, /w/parts/*]" : "[/w/in/NAME]"
        var text = "version: 1\ntasks:\n"
        for name in names {
            text += "  \(name): {inputs: \(inputs), outputs: [/w/out/NAME], shell: [cp, /w/in/NAME, /w/out/NAME]}\n"
                .replacingOccurrences(of: "NAME", with: name)
        }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: base + "/flow.yaml"))
        let loaded = WorkflowLoader.load(path: base + "/flow.yaml")
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        return try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
    }

    /// One run of `plan` as the engine drives the gate, each task in plan order (none needs
    /// another here); a task that runs copies its input to its output. The ids of those that ran.
    @discardableResult
    func run(_ plan: Plan) -> [String] {
        let check = UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml"),
            force: false, fileSystem: disk)
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

    /// Inputs written, one run, then time for every file to settle (not racy any more).
    func built(_ names: [String], glob: Bool = false) throws -> Plan {
        for name in names { disk.write("/w/in/" + name, "input " + name) }
        let plan = try plan(names, glob: glob)
        #expect(run(plan) == names)
        disk.advance(seconds: 10)
        #expect(run(plan) == [])  // the files hashed within a tick of their change are hashed once more
        disk.advance(seconds: 10)
        return plan
    }

    /// A task found up to date with every stamp standing is not held as text: its fingerprint,
    /// its value and its record are read back from the state when asked. They are those its
    /// success left, and its dependent, whose needs' digest takes its value, is up to date too.
    @Test func aTaskUpToDateWithItsStampsStandingGivesWhatItsSuccessLeft() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        disk.write("/w/in/a", "input a")
        let text = """
            version: 1
            tasks:
              a: {inputs: [/w/in/a], outputs: [/w/out/a], shell: [cp, /w/in/a, /w/out/a]}
              b: {needs: [a], inputs: [/w/out/a], outputs: [/w/out/b], shell: [cp, /w/out/a, /w/out/b]}

            """
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: base + "/flow.yaml"))
        let loaded = WorkflowLoader.load(path: base + "/flow.yaml")
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        func check() -> UpToDateCheck {
            UpToDateCheck(
                plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml"),
                force: false, fileSystem: disk)
        }
        let first = check()
        for (index, task) in plan.tasks.enumerated() {
            #expect(first.skipReason(for: index) == nil)
            disk.write("/w/out/" + task.id, "made " + task.id)
            first.taskSucceeded(index)
        }
        first.finish()
        let fingerprints = plan.tasks.indices.map { first.fingerprint(at: $0) }
        let values = plan.tasks.indices.map { first.value(at: $0) }
        let records = plan.tasks.indices.map { first.builtRecord(at: $0) }
        #expect(records.allSatisfy { $0 != nil } && values.allSatisfy { $0 != nil })
        // The next run hashes the files written within a tick again (racy); the one after
        // finds every stamp standing.
        for _ in 0..<2 {
            disk.advance(seconds: 10)
            let later = check()
            #expect(plan.tasks.indices.allSatisfy { later.skipReason(for: $0) == UpToDateCheck.reason })
            later.finish()
            #expect(plan.tasks.indices.map { later.fingerprint(at: $0) } == fingerprints)
            #expect(plan.tasks.indices.map { later.value(at: $0) } == values)
            #expect(plan.tasks.indices.map { later.builtRecord(at: $0) } == records)
            #expect(plan.tasks.indices.map { later.fingerprint(at: $0)?.value } == values)
        }
    }

    @Test func aFileWhoseStampStandsIsNotHashed() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try built(["a", "b"])
        let hashes = disk.hashes
        #expect(run(plan) == [])
        #expect(disk.hashes == hashes)
    }

    /// Touched (rewritten with the same contents): hashed once, still up to date, and its new
    /// stamp kept so that it is not hashed again.
    @Test func aFileWhoseStampMovedIsHashedOnceAndStaysUpToDate() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try built(["a", "b"])
        disk.write("/w/in/a", "input a")
        disk.advance(seconds: 10)
        let hashes = disk.hashes
        #expect(run(plan) == [])
        #expect(disk.hashes == hashes + 1)
        #expect(run(plan) == [])
        #expect(disk.hashes == hashes + 1)
    }

    /// git's racy rule: an input hashed within a tick of its change may change again without
    /// its stamp showing it, so its stamp alone is not trusted.
    @Test func aFileHashedWhileRacyIsHashedAgainAndAnEditInTheSameTickIsSeen() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        disk.write("/w/in/a", "input a")
        let plan = try plan(["a"])
        #expect(run(plan) == ["a"])
        disk.replaceKeepingStatus("/w/in/a", "input A")  // same size, same tick: the stamp is as kept
        disk.advance(seconds: 10)
        #expect(run(plan) == ["a"])
    }

    @Test func anEditedOrDeletedFileIsSeen() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try built(["a", "b"])
        disk.write("/w/in/a", "edited")
        disk.advance(seconds: 10)
        #expect(run(plan) == ["a"])
        disk.advance(seconds: 10)
        disk.write("/w/out/b", "made by hand")
        disk.advance(seconds: 10)
        #expect(run(plan) == ["b"])
        disk.advance(seconds: 10)
        disk.remove("/w/out/a")
        #expect(run(plan) == ["a"])
        disk.advance(seconds: 10)
        disk.remove("/w/in/b")
        #expect(run(plan).first == "b")  // a missing input: it runs (and fails, in a real run)
    }

    /// A file replaced by another one (a new inode) with the same size and times.
    @Test func aFileReplacedByAnotherIsHashed() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try built(["a"])
        let kept = try #require(disk.status(of: "/w/in/a"))
        disk.remove("/w/in/a")
        disk.write("/w/in/a", "input b")
        disk.setStatus("/w/in/a", modifiedNanoseconds: kept.modifiedNanoseconds, changedNanoseconds: kept.changedNanoseconds)
        disk.advance(seconds: 10)
        #expect(run(plan) == ["a"])
    }

    @Test func aFileAddedOrRemovedUnderAGlobIsSeen() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        disk.write("/w/parts/1", "one")
        let plan = try built(["a"], glob: true)
        disk.write("/w/parts/2", "two")
        disk.advance(seconds: 10)
        #expect(run(plan) == ["a"])
        disk.advance(seconds: 10)
        #expect(run(plan) == [])
        disk.remove("/w/parts/1")
        #expect(run(plan) == ["a"])
    }

    /// Tasks added, removed and moved in the workflow: each task is judged by its own state,
    /// never by the one that was at its index.
    @Test func tasksAddedRemovedOrReorderedKeepTheirOwnState() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        _ = try built(["a", "b", "c"])
        disk.write("/w/in/new", "input new")
        #expect(run(try plan(["new", "c", "a"])) == ["new"])
        // b, left out of that run, is still up to date; an edit of c is seen where c now is.
        disk.write("/w/in/c", "edited")
        disk.advance(seconds: 10)
        #expect(run(try plan(["c", "b", "a", "new"])) == ["c"])
        disk.advance(seconds: 10)
        #expect(run(try plan(["a", "b", "c", "new"])) == [])
    }

    /// A plan large enough that the files are stat'ed on every core before the run
    /// (`FilesBeforeRun`): those statuses are trusted only until a task runs. Here `reader`
    /// reads what `writer` makes and is checked after it (no `needs`, so that only the file can
    /// tell): once `writer` has run, `reader` is judged on that file as `writer` left it, not as
    /// it was before the run.
    @Test func aFileWrittenByATaskThatRanIsSeenByTheTaskThatReadsItInALargePlan() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let names = ["writer"] + (0..<FilesBeforeRun.minimumTasks).map { "t\($0)" }
        let reader = "  reader: {inputs: [/w/in/reader, /w/out/writer], outputs: [/w/out/reader], shell: [cp, /w/in/reader, /w/out/reader]}\n"
        for name in names + ["reader"] { disk.write("/w/in/" + name, "input " + name) }
        _ = try plan(names)
        let path = base + "/flow.yaml"
        try Data((try String(contentsOfFile: path, encoding: .utf8) + reader).utf8).write(to: URL(fileURLWithPath: path))
        let loaded = WorkflowLoader.load(path: path)
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        #expect(run(plan).count == names.count + 1)
        disk.advance(seconds: 10)
        #expect(run(plan) == [])
        disk.advance(seconds: 10)
        disk.write("/w/in/writer", "edited")
        disk.advance(seconds: 10)
        #expect(run(plan) == ["writer", "reader"])
    }

    /// A state file that is damaged is not trusted: every task runs, and the next run has a
    /// whole file again.
    @Test func aDamagedStateFileMakesEveryTaskRunAndIsWrittenAnew() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try built(["a", "b"])
        let path = TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml").path
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 1
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(run(plan) == ["a", "b"])
        disk.advance(seconds: 10)
        #expect(run(plan) == [])
    }
}
