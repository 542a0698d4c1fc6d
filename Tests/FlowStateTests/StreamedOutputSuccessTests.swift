import Dispatch
import FlowFiles
import FlowPlanning
import FlowTestSupport
import Foundation
import Testing

@testable import FlowState

/// A success whose every file its action hashed as it wrote it (a download's `to`, whose digest
/// `StreamedDigests` holds) is recorded on the engine's loop: hashing it reads no file, and the
/// hop to the hashing queue and back cost each of 200 downloads two thread wake-ups before its
/// slot was free. One whose output has no such digest is still hashed off the loop
/// (`SuccessHashingTests`), and both are recorded the same.
@Suite struct StreamedOutputSuccessTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-output-\(UUID().uuidString)").path

    var output: String { base + "/got" }

    func check(_ plan: Plan) -> UpToDateCheck {
        UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/w.yaml"), force: false)
    }

    /// The plan of one task that makes `output`, after a first check that finds it must run,
    /// with `output` written then.
    func ranOnce() throws -> (Plan, UpToDateCheck) {
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let plan = try PlannedTasks.plan("version: 1\ntasks:\n  get: {outputs: ['\(output)'], shell: 'fetch'}\n", directory: base)
        let check = check(plan)
        #expect(check.skipReason(for: 0) == nil)
        try Data("made".utf8).write(to: URL(fileURLWithPath: output))
        return (plan, check)
    }

    /// The next run finds the task up to date: its success was recorded.
    func expectUpToDateNextTime(_ plan: Plan) {
        let next = check(plan)
        #expect(next.skipReason(for: 0) == UpToDateCheck.reason)
        next.finish()
    }

    @Test func aSuccessWhoseOutputWasHashedAsItWasWrittenIsRecordedWithoutAHop() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, check) = try ranOnce()
        let digest = try #require(LocalFileSystem().hash(of: output))
        StreamedDigests.shared.note(digest, forFileAt: output)
        #expect(!check.taskSucceeded(0) { Issue.record("hashed on the hashing queue") }, "recorded here, on the loop")
        #expect(check.builtRecord(at: 0) != nil)
        check.finish()
        #expect(check.writeFailure == nil)
        expectUpToDateNextTime(plan)
    }

    @Test func oneWithoutADigestNotedIsStillHashedOffTheLoop() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (plan, check) = try ranOnce()
        let recorded = DispatchSemaphore(value: 0)
        #expect(check.taskSucceeded(0) { recorded.signal() }, "hashed on the hashing queue")
        recorded.wait()
        #expect(check.builtRecord(at: 0) != nil)
        check.finish()
        #expect(check.writeFailure == nil)
        expectUpToDateNextTime(plan)
    }
}
