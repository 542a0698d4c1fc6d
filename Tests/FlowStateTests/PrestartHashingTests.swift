import FlowEngine
import FlowFiles
import FlowModel
import FlowPlanning
import FlowTestSupport
import Foundation
import Testing

@testable import FlowState

/// The check before a task starts hashes a changed input off the engine's loop
/// (`UpToDateCheck.check(_:decided:)`): while `/w/big.in` is hashed, the task holds its slot,
/// the other tasks end and start, and it is started (or skipped as up to date) once the hash is
/// done. The first run records every task (the gate open); the second finds `big.in`'s stamp
/// changed, and its hash waits for the test (`GatedFileSystem`).
@Suite struct PrestartHashingTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("prestart-hashing-\(UUID().uuidString)").path

    static let yaml = """
        version: 1
        concurrency: 2
        tasks:
          big: {inputs: [/w/big.in], outputs: [/w/big], shell: 'make big'}
          small1: {shell: 'make small1'}
          small2: {shell: 'make small2'}
          after: {needs: [big], inputs: [/w/big], outputs: [/w/after], shell: 'make after'}
        """

    func check(_ plan: Plan, on disk: GatedFileSystem) -> UpToDateCheck {
        UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/w.yaml"),
            force: false, fileSystem: disk)
    }

    /// Ends `task`'s attempt with its output written, and lets the loop run what that posts.
    func end(_ task: TaskID, in run: SuccessHashingTests.Run, disk: GatedFileSystem, loop: InboxLoop) throws {
        disk.write("/w/\(task)", "made by \(task)")
        try #require(run.runner.running(task), "'\(task)' is not running").end(.succeeded)
        loop.runPosted()
    }

    /// Runs the plan to its end with the gate open, every task recorded.
    func firstRun(_ plan: Plan, disk: GatedFileSystem) throws {
        disk.holds = false
        disk.write("/w/big.in", "input v1")
        let loop = InboxLoop()
        let gate = check(plan, on: disk)
        let run = SuccessHashingTests.Run(plan, loop: loop, gate: gate)
        run.engine.start()
        loop.runPosted()
        for task: TaskID in ["big", "small1", "small2", "after"] {
            try end(task, in: run, disk: disk, loop: loop)
            if TaskDefinition.isTracked(plan.tasks[plan.tasks.firstIndex { $0.id == task }!]) { loop.waitForPost() }
            loop.runPosted()
        }
        try #require(run.finished == .succeeded)
        gate.finish()
        try #require(gate.writeFailure == nil)
        disk.holds = true
    }

    /// The set-up of every test: a first run records every task, `big.in` is then written with
    /// `input` (`later` seconds on, when given), and the second run is started: its check
    /// hashes `big.in` off the loop, where it waits for `disk.letGo()`.
    func secondRun(
        input: String, later: Double? = nil
    ) throws -> (disk: GatedFileSystem, plan: Plan, loop: InboxLoop, gate: UpToDateCheck, run: SuccessHashingTests.Run) {
        let disk = GatedFileSystem(gated: "/w/big.in")
        let plan = try PlannedTasks.plan(Self.yaml, directory: base)
        try firstRun(plan, disk: disk)
        disk.write("/w/big.in", input)
        if let later { disk.advance(seconds: later) }
        let loop = InboxLoop()
        let gate = check(plan, on: disk)
        let run = SuccessHashingTests.Run(plan, loop: loop, gate: gate)
        run.engine.start()
        loop.runPosted()
        try #require(!disk.hashedOnTheLoop, "the changed input was hashed on the loop, which waited for it")
        return (disk, plan, loop, gate, run)
    }

    func skipped(_ run: SuccessHashingTests.Run) -> [TaskID: String] {
        var skipped: [TaskID: String] = [:]
        for case .taskSkipped(let task, let reason, _) in run.sink.kinds { skipped[task] = reason }
        return skipped
    }

    @Test func theLoopGoesOnWhileAChangedInputIsHashedBeforeItsTaskStarts() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (disk, plan, loop, gate, run) = try secondRun(input: "input v2")
        #expect(run.started == ["small1"], "big holds its slot while its input is hashed")

        try end("small1", in: run, disk: disk, loop: loop)
        #expect(run.started == ["small1", "small2"], "small2 started in small1's slot")

        disk.letGo()
        loop.waitForPost()
        loop.runPosted()
        #expect(run.started == ["small1", "small2", "big"], "big starts once its input is hashed: it changed")
        #expect(!run.started.contains("after"), "the dependent waits for its need")

        try end("big", in: run, disk: disk, loop: loop)
        loop.waitForPost()
        loop.runPosted()
        #expect(run.started.last == "after")
        try end("small2", in: run, disk: disk, loop: loop)
        try end("after", in: run, disk: disk, loop: loop)
        loop.waitForPost()
        loop.runPosted()
        #expect(run.finished == .succeeded)
        #expect(skipped(run).isEmpty)
        gate.finish()
        #expect(gate.writeFailure == nil)

        disk.holds = false
        let next = check(plan, on: disk)
        #expect(next.skipReason(for: 0) == UpToDateCheck.reason, "big is up to date with its new input next time")
        next.finish()
    }

    @Test func aTouchedInputHashedBeforeItsTaskStartsSkipsItAsUpToDate() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (disk, plan, loop, gate, run) = try secondRun(input: "input v1", later: 5)  // the same contents, a new stamp
        #expect(run.started == ["small1"])
        #expect(skipped(run).isEmpty, "big is not decided before its input is hashed")

        disk.letGo()
        loop.waitForPost()
        loop.runPosted()
        #expect(skipped(run) == ["big": UpToDateCheck.reason], "big is up to date: its input's contents are those recorded")
        #expect(run.started == ["small1", "small2"], "small2 started in big's slot")
        try end("small1", in: run, disk: disk, loop: loop)
        // after's files were written just before they were hashed in the first run: its check
        // hashes them again, off the loop too.
        loop.waitForPost()
        loop.runPosted()
        #expect(skipped(run)["after"] == UpToDateCheck.reason, "its dependent is up to date too")
        try end("small2", in: run, disk: disk, loop: loop)
        #expect(run.finished == .succeeded)
        gate.finish()

        let next = check(plan, on: disk)
        #expect(next.skipReason(for: 0) == UpToDateCheck.reason)
        #expect(!disk.hashedOnTheLoop, "the input's new stamp was kept: it is not hashed again")
        next.finish()
    }

    @Test func aCtrlCWhileAnInputIsHashedEndsItsTaskWithoutRecording() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (disk, plan, loop, gate, run) = try secondRun(input: "input v2")
        run.engine.cancel(reason: "interrupted")
        loop.runPosted()
        #expect(run.sink.kinds.contains(.taskCancelled(task: "big", reason: "interrupted")), "big ends at once, not started")
        try #require(run.runner.running("small1")).end(.failed(reason: "terminated", exitCode: nil))
        loop.runPosted()
        #expect(run.finished == .cancelled)
        #expect(!run.started.contains("big"))

        disk.letGo()
        gate.finish()
        loop.waitForPost()
        loop.runPosted()  // the check's late answer changes nothing
        #expect(run.started == ["small1"])

        disk.holds = false
        disk.write("/w/big.in", "input v1")
        let next = check(plan, on: disk)
        #expect(next.skipReason(for: 0) == UpToDateCheck.reason, "big's state was left as it was: up to date with its old input")
        next.finish()
    }
}
