import FlowConsole
import FlowEvents
import FlowModel
import FlowTestSupport
import Foundation
import Glibc
import Testing

/// Lines held for a batch reach the output whole and in order: when the timer fires, at 64 KiB,
/// and at the end; a failed write is still told, once.
@Suite struct BatchedWriterTests {
    @Test func linesWaitForTheTimerThenGoOutInOrder() throws {
        let file = try OutputFile()
        defer { file.remove() }
        let timer = ManualFlushTimer()
        let output = BatchedWriter(try file.writer(), timer: timer)
        output.write("one\n")
        output.write("two\n")
        #expect(try file.text() == "")
        #expect(timer.armed == 1)  // one flush for the batch, not one per line
        timer.fire()
        #expect(try file.text() == "one\ntwo\n")
        output.write("three\n")
        #expect(timer.armed == 1)
        output.finish()
        #expect(try file.text() == "one\ntwo\nthree\n")
        output.write("after the end\n")
        timer.fire()
        #expect(try file.text() == "one\ntwo\nthree\n")
    }

    @Test func sixtyFourKibibytesGoOutWithoutWaiting() throws {
        let file = try OutputFile()
        defer { file.remove() }
        let timer = ManualFlushTimer()
        let output = BatchedWriter(try file.writer(), timer: timer)
        let line = String(repeating: "x", count: 1023) + "\n"
        for _ in 0..<63 { output.write(line) }
        #expect(try file.text() == "")
        output.write(line)
        #expect(try file.text() == String(repeating: line, count: 64))
        output.write("tail\n")
        timer.fire()
        #expect(try file.text() == String(repeating: line, count: 64) + "tail\n")
    }

    @Test func aFullDiskIsToldOnceAtTheFlushAndNothingIsHeldAfterIt() throws {
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        defer { close(full) }
        let told = LockedCount()
        let timer = ManualFlushTimer()
        let output = BatchedWriter(DescriptorWriter(descriptor: full, name: "the log", onFailure: { _ in told.add() }), timer: timer)
        output.write("a line\n")
        #expect(output.failure == nil)
        timer.fire()
        #expect(output.failure == WriteFailure(output: "the log", code: ENOSPC))
        output.write("another line\n")
        #expect(timer.armed == 0)
        output.finish()
        #expect(told.value == 1)
    }

    @Test func aPlainLogShowsEachLineWhenItsTimerFiresBeforeTheRunEnds() throws {
        let file = try OutputFile()
        defer { file.remove() }
        let timer = ManualFlushTimer()
        let log = PlainLog(writer: try file.writer(), flushTimer: timer)
        log.receive([
            RunEvent(seq: 1, timeMilliseconds: 0, kind: .workflowStarted(workflow: "ci", file: "flow.yaml", tasks: 1, concurrency: 2)),
            RunEvent(seq: 2, timeMilliseconds: 1, kind: .taskStarted(task: "build", attempt: 1, kind: "shell")),
        ])
        log.receive(RunEvent(seq: 3, timeMilliseconds: 2, kind: .taskOutput(task: "build", stream: .stdout, line: "compiling")))
        #expect(try file.text() == "")
        timer.fire()
        #expect(try file.text() == "workflow ci: 1 task, concurrency 2\n[build] started (shell)\n[build] | compiling\n")
        var counts = FinalCounts()
        counts.succeeded = 1
        log.receive(RunEvent(seq: 4, timeMilliseconds: 3, kind: .taskSucceeded(task: "build", attempts: 1, durationMilliseconds: 2)))
        log.receive(RunEvent(seq: 5, timeMilliseconds: 4, kind: .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 4, counts: counts)))
        log.finish()
        #expect(
            try file.text()
                == "workflow ci: 1 task, concurrency 2\n[build] started (shell)\n[build] | compiling\n[build] succeeded in 0.0s\nworkflow ci succeeded in 0.0s: 1 succeeded\n"
        )
    }
}

private final class LockedCount: @unchecked Sendable {  // `lock` guards `count`.
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
