import FlowActions
import FlowEngine
import FlowModel
import FlowPlanning
import FlowTestSupport
import Foundation
import Testing

/// The output loop tells a pipe's end from epoll's report when the pipe is empty and hung up,
/// without a `read(2)` (two a task that prints nothing): a pipe hung up with bytes still in it
/// must be read to its end first. Tasks that write their last bytes (no newline) and exit at
/// once, beside tasks that print nothing, keep every byte, each on its stream.
@Suite struct PipeEndTests {
    @Test func theLastBytesBeforeAnExitAreReadAndSilentTasksEnd() async throws {
        let folder = try ActionAttemptHarness.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let count = 40
        var tasks = "version: 1\ntasks:\n"
        for index in 0..<count {
            if index.isMultiple(of: 2) {
                tasks += "  t\(index): {shell: \"printf out\(index); printf err\(index) >&2\"}\n"
            } else {
                tasks += "  t\(index): {shell: \"true\"}\n"
            }
        }
        let plan = try PlannedTasks.plan(tasks, directory: folder)
        let runner = ActionRunner()
        let (status, kinds) = await RunLoopTests.run(plan, with: runner)
        runner.finishRun()
        #expect(status == .succeeded)
        var lines: Set<String> = []
        var succeeded = 0
        for kind in kinds {
            switch kind {
            case .taskOutput(let task, let stream, let line): lines.insert("\(task) \(stream == .stdout ? "out" : "err") \(line)")
            case .taskSucceeded: succeeded += 1
            default: break
            }
        }
        #expect(succeeded == count)
        let expected = Set(
            stride(from: 0, to: count, by: 2).flatMap { index in
                ["t\(index) out out\(index)", "t\(index) err err\(index)"]
            })
        #expect(lines == expected)
    }
}
