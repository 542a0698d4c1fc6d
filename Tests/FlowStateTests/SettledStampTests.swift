import FlowFiles
import FlowLoading
import FlowPlanning
import Foundation
import Testing

@testable import FlowState

/// The racy rule at a run's end, on the in-memory file system with a clock that stamps to the
/// nanosecond (ext4, tmpfs): a success whose files were hashed within their stamps' tick is
/// recorded once the clock has passed them, hashed again then, so the first run after a full
/// one only stats; and a file edited within the tick of its digest is never taken as up to date.
@Suite struct SettledStampTests {
    static let millisecond: Int64 = 1_000_000
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("settled-stamps-\(UUID().uuidString)").path
    /// A clock between two whole seconds, as a real one is: stamps with nanoseconds.
    let disk = InMemoryFileSystem(now: 1_000 * 1_000_000_000 + 123_456_789)

    /// A task per name, copying `/w/in/NAME` to `/w/out/NAME`.
    func plan(_ names: [String]) throws -> Plan {
        try UpToDateStampTests.copyPlan(names, writtenIn: base)
    }

    var states: TaskStates {
        TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml")
    }

    /// One run of `plan`, each task in plan order taking a millisecond to copy its input;
    /// `afterSuccess` is called with each task that ran, once the check has its success and
    /// before the run ends. The ids of those that ran.
    @discardableResult
    func run(_ plan: Plan, afterSuccess: (String) -> Void = { _ in }) -> [String] {
        let check = UpToDateCheck(plan: plan, states: states, force: false, fileSystem: disk)
        var ran: [String] = []
        for (index, task) in plan.tasks.enumerated() where check.skipReason(for: index) == nil {
            ran.append(task.id)
            disk.advance(seconds: 0.001)
            disk.write("/w/out/" + task.id, "made from " + (disk.contents("/w/in/" + task.id) ?? "nothing"))
            check.taskSucceeded(index)
            afterSuccess(task.id)
        }
        check.finish()
        #expect(check.writeFailure == nil)
        return ran
    }

    /// The state file's inode: a run that rewrites it renames a new file into place.
    func stateInode() -> UInt64? {
        FileStatus.of(path: states.path)?.inode
    }

    @Test func theStepOfAStampIsToldFromItsNanoseconds() {
        func step(_ modified: Int64, _ changed: Int64) -> Int64 {
            FileStatus(size: 1, modifiedNanoseconds: modified, changedNanoseconds: changed, inode: 1).granularityNanoseconds
        }
        let second: Int64 = 1_000_000_000
        #expect(step(5 * second + 123_456_789, 5 * second + 123_456_790) == FileStatus.fineGranularityNanoseconds)
        #expect(step(5 * second, 7 * second) == 2 * second)  // whole seconds: ext3, FAT
        #expect(step(5 * second, 7 * second + 1) == FileStatus.fineGranularityNanoseconds)  // one of them finer
        #expect(step(5 * second + 120_000_000, 5 * second + 340_000_000) == 20 * Self.millisecond)  // hundredths: exFAT
        #expect(step(5 * second + 100_000_000, 5 * second + 300_000_000) == 200 * Self.millisecond)  // tenths
        #expect(step(-5 * second + 200_000_000, 0) == 200 * Self.millisecond)  // before 1970
        let fine = FileStatus(size: 1, modifiedNanoseconds: 5 * second + 1, changedNanoseconds: 5 * second + 1, inode: 1)
        #expect(fine.isRacy(at: 5 * second + 1 + FileStatus.fineGranularityNanoseconds))
        #expect(!fine.isRacy(at: 5 * second + 2 + FileStatus.fineGranularityNanoseconds))
    }

    /// The full run hashes each output once as its task ends and once more when it has settled,
    /// waiting at its end for the last few milliseconds only; the next run hashes nothing and
    /// leaves the state file as it was.
    @Test func theFirstRunAfterAFullRunHashesNothingAndWritesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let names = (0..<50).map { "t\($0)" }
        for name in names { disk.write("/w/in/" + name, "input " + name) }
        disk.advance(seconds: 1)
        let plan = try plan(names)
        #expect(run(plan) == names)
        #expect(disk.waits == 1)
        #expect(disk.waitedNanoseconds <= FileStatus.fineGranularityNanoseconds + Self.millisecond)
        let inode = stateInode()
        #expect(inode != nil)
        disk.advance(seconds: 0.5)
        let hashes = disk.hashes
        #expect(run(plan) == [])
        #expect(disk.hashes == hashes)
        #expect(stateInode() == inode)
    }

    /// An output rewritten right after its task ended, in the same tick (same size, same
    /// stamp): the digest taken at the end is not its contents any more, and the task runs again.
    @Test func anOutputEditedInTheTickOfItsDigestMakesItsTaskRunAgain() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        for name in ["a", "b"] { disk.write("/w/in/" + name, "input " + name) }
        disk.advance(seconds: 1)
        let plan = try plan(["a", "b"])
        #expect(run(plan) { if $0 == "a" { disk.replaceKeepingStatus("/w/out/a", "made from INPUT a") } } == ["a", "b"])
        disk.advance(seconds: 1)
        #expect(run(plan) == ["a"])
        disk.advance(seconds: 1)
        #expect(run(plan) == [])
    }

    /// An input written just before its task ran and rewritten in the same tick after its
    /// success: the digest the task was recorded with is not the input's any more.
    @Test func anInputEditedInTheTickOfItsDigestMakesItsTaskRunAgain() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try plan(["a", "b"])
        for name in ["a", "b"] { disk.write("/w/in/" + name, "input " + name) }
        #expect(run(plan) { if $0 == "b" { disk.replaceKeepingStatus("/w/in/b", "input B") } } == ["a", "b"])
        disk.advance(seconds: 1)
        #expect(run(plan) == ["b"])
        disk.advance(seconds: 1)
        #expect(run(plan) == [])
    }

    /// An edit once the run has ended is stamped after the digest's tick: seen by its stamp.
    @Test func anEditAfterTheRunIsSeen() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        disk.write("/w/in/a", "input a")
        let plan = try plan(["a"])
        #expect(run(plan) == ["a"])
        disk.write("/w/in/a", "input A")
        #expect(run(plan) == ["a"])
        disk.write("/w/out/a", "made by hand")
        #expect(run(plan) == ["a"])
        #expect(run(plan) == [])
    }
}
