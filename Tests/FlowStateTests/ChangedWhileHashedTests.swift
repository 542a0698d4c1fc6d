import FlowEngine
import FlowPlanning
import FlowTestSupport
import Foundation
import Testing

@testable import FlowState

/// A file that changes while a finished task's files are hashed off the loop (an editor saves it
/// while a large file of the same task is read): its status was taken before the change, its
/// contents are read after it. Kept so, the record would pair the old stamp with the new
/// contents, and the next run, finding the stamp changed, would hash the file, find the contents
/// recorded and keep the task up to date, although it ran on the old input (make rebuilds
/// then: the input is newer than the output), or although its output was edited after it (which
/// flowrun runs again for, `changedOutput`). Such a file is taken as changed: the task runs
/// again next time.
@Suite struct ChangedWhileHashedTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("changed-while-hashed-\(UUID().uuidString)").path

    /// Runs the one task of `yaml` on a manual loop; once its files are being hashed (the hash of
    /// the gated path waits), `change` is made; then the hash goes on and the run ends. Says
    /// whether the task is up to date for the next run.
    func upToDateAfterRun(_ yaml: String, gated: String, writing outputs: [String], change: (GatedFileSystem) -> Void) throws -> Bool {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (disk, loop) = (GatedFileSystem(gated: gated), InboxLoop())
        let plan = try PlannedTasks.plan(yaml, directory: base)
        let states = { TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/w.yaml") }
        let gate = UpToDateCheck(plan: plan, states: states(), force: false, fileSystem: disk)
        let run = SuccessHashingTests.Run(plan, loop: loop, gate: gate)
        disk.write("/w/a", "input a")
        disk.write("/w/b", "input b")
        disk.advance(seconds: 10)
        run.engine.start()
        loop.runPosted()
        for output in outputs { disk.write(output, "made") }
        disk.advance(seconds: 10)  // the outputs have settled when hashed
        try #require(run.runner.running("t")).end(.succeeded)
        loop.runPosted()
        disk.waitUntilHeld()
        disk.advance(seconds: 10)
        change(disk)
        disk.letGo()
        loop.waitForPost()
        loop.runPosted()
        #expect(run.finished == .succeeded)
        gate.finish()
        #expect(gate.writeFailure == nil)

        let next = UpToDateCheck(plan: plan, states: states(), force: false, fileSystem: disk)
        defer { next.finish() }
        return next.skipReason(for: 0) == UpToDateCheck.reason
    }

    @Test func anInputSavedWhileAnotherIsHashedMakesTheTaskRunAgain() throws {
        let yaml = """
            version: 1
            tasks:
              t: {inputs: [/w/a, /w/b], outputs: [/w/out], shell: 'make t'}
            """
        // b was stat'ed with a, before a's hash; saved with other contents of its size meanwhile.
        let upToDate = try upToDateAfterRun(yaml, gated: "/w/a", writing: ["/w/out"]) { $0.write("/w/b", "input B") }
        #expect(!upToDate, "t ran on the old b: it runs again, as make would")
    }

    @Test func anOutputEditedWhileAnotherIsHashedMakesTheTaskRunAgain() throws {
        let yaml = """
            version: 1
            tasks:
              t: {outputs: [/w/big, /w/small], shell: 'make t'}
            """
        let upToDate = try upToDateAfterRun(yaml, gated: "/w/big", writing: ["/w/big", "/w/small"]) { $0.write("/w/small", "edited") }
        #expect(!upToDate, "small was edited after t made it: t runs again, as after an edit once the run has ended")
    }

    /// The inputs of a task never run before are hashed at its success, once they are found as
    /// they were at its start. A file saved after that look, before its hash, was taken with its
    /// new stamp and contents (the hash's own look found them): a consistent record of contents
    /// the task never read. The save is made at whichever comes first: a walk after that look
    /// (a look of the hash's own, as there was) or the hash of the file.
    @Test func anInputSavedAfterItWasFoundUnchangedMakesTheTaskRunAgain() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (disk, loop) = (GatedFileSystem(gated: "/w/in/x"), InboxLoop())
        let yaml = """
            version: 1
            tasks:
              t: {inputs: ['/w/in/*'], outputs: [/w/out], shell: 'make t'}
            """
        let plan = try PlannedTasks.plan(yaml, directory: base)
        let states = { TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/w.yaml") }
        let gate = UpToDateCheck(plan: plan, states: states(), force: false, fileSystem: disk)
        let run = SuccessHashingTests.Run(plan, loop: loop, gate: gate)
        disk.write("/w/in/x", "input x")
        disk.advance(seconds: 10)
        run.engine.start()
        loop.runPosted()
        disk.write("/w/out", "made")
        disk.advance(seconds: 10)
        let save = SaveOnce(disk: disk)
        // Walks from now: at its success (found unchanged as at its start), then any other.
        let walks = WalkCount()
        disk.onWalk = { _ in if walks.next() == 2 { save.now() } }
        try #require(run.runner.running("t")).end(.succeeded)
        loop.runPosted()
        disk.waitUntilHeld()
        save.now()
        disk.letGo()
        loop.waitForPost()
        loop.runPosted()
        disk.onWalk = nil
        #expect(run.finished == .succeeded)
        gate.finish()

        let next = UpToDateCheck(plan: plan, states: states(), force: false, fileSystem: disk)
        defer { next.finish() }
        #expect(next.skipReason(for: 0) == nil, "t ran on the old x: it runs again")
    }

    /// The control: nothing changed meanwhile, the task is up to date.
    @Test func nothingChangedWhileHashedKeepsTheTaskUpToDate() throws {
        let yaml = """
            version: 1
            tasks:
              t: {inputs: [/w/a, /w/b], outputs: [/w/out], shell: 'make t'}
            """
        #expect(try upToDateAfterRun(yaml, gated: "/w/a", writing: ["/w/out"]) { _ in })
    }
}

/// How many walks were made, counted from the thread that makes them.
final class WalkCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// The count, one more each call: 1 at the first.
    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}

/// Saves `/w/in/x` with new contents of its size, once, from whichever thread comes first.
final class SaveOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var saved = false
    private let disk: GatedFileSystem

    init(disk: GatedFileSystem) { self.disk = disk }

    func now() {
        let first = lock.withLock { () -> Bool in
            defer { saved = true }
            return !saved
        }
        guard first else { return }
        disk.advance(seconds: 10)
        disk.write("/w/in/x", "input X")
    }
}
