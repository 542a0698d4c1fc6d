import Dispatch
import FlowFiles
import FlowPlanning
import FlowTestSupport
import Foundation
import Testing

@testable import FlowState

/// The check before a task starts goes off the engine's loop only when it has a file to read
/// (`UpToDateCheck.check(_:decided:)`). A task without inputs whose outputs are all gone (a
/// download whose file was removed: every run of `download_bench.py`) has none: it is decided
/// at once, and starts without a hop to the hashing queue and back. One with an input still
/// goes there, as `InputsAtStart` walks its patterns again.
@Suite struct MissingOutputCheckTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("missing-output-check-\(UUID().uuidString)").path
    let disk = InMemoryFileSystem()

    static let yaml = """
        version: 1
        tasks:
          get: {outputs: [/w/got], shell: 'make got'}
          copy: {inputs: [/w/in], outputs: [/w/copied], shell: 'make copied'}
        """

    func check(_ plan: Plan) -> UpToDateCheck {
        UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/w.yaml"),
            force: false, fileSystem: disk)
    }

    @Test func aTaskWithoutInputsWhoseOutputsAreGoneIsDecidedAtOnce() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try PlannedTasks.plan(Self.yaml, directory: base)
        disk.write("/w/in", "source")
        let first = check(plan)
        for (index, output) in ["/w/got", "/w/copied"].enumerated() {
            #expect(first.skipReason(for: index) == nil)
            disk.write(output, "made")
            first.taskSucceeded(index)
        }
        first.finish()
        try #require(first.writeFailure == nil)
        disk.advance(seconds: 1)
        disk.remove("/w/got")
        disk.remove("/w/copied")

        let second = check(plan)
        #expect(second.check(0) { _ in Issue.record("decided later, after a hop to the hashing queue") } == .now(nil))
        let decided = DispatchSemaphore(value: 0)
        let reason = LockedBox<String??>(nil)
        #expect(
            second.check(1) { found in
                reason.value = .some(found)
                decided.signal()
            } == .later)
        decided.wait()
        #expect(reason.value == .some(nil), "copy runs: its output is gone")
        second.finish()
        #expect(second.writeFailure == nil)

        // Both were forgotten as they were decided to run: still not up to date.
        let third = check(plan)
        #expect(third.skipReason(for: 0) == nil)
        #expect(third.skipReason(for: 1) == nil)
        third.finish()
    }

    /// `hasNoInputs`, which the checks ask instead of making `inputs(of:)` (a `file:` URL's
    /// path decoded by Character), never says none when there is one.
    @Test func aTaskHasNoInputsOnlyWhenItsInputsAreEmpty() throws {
        let plan = try PlannedTasks.plan(
            """
            version: 1
            tasks:
              web: {download: {url: 'http://127.0.0.1:9/x', to: /w/web}}
              upper: {download: {url: 'FILE:///w/source', to: /w/upper}}
              local: {download: {url: 'file://localhost/w/source', to: /w/local}}
              declared: {download: {url: 'https://127.0.0.1:9/x', to: /w/declared}, inputs: [/w/list]}
              shell: {outputs: [/w/made], shell: 'make'}
            """, directory: base)
        var none: [String] = []
        for task in plan.tasks {
            let files = TaskFiles(task)
            if TaskDefinition.hasNoInputs(files) { none.append(task.id) }
            #expect(!TaskDefinition.hasNoInputs(files) || TaskDefinition.inputs(of: task).isEmpty, "\(task.id) has inputs")
        }
        #expect(none == ["web", "shell"])
    }
}

/// A value shared with a callback on another thread.
private final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
