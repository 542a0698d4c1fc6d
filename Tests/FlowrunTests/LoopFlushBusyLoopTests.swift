import Foundation
import Glibc
import Testing

/// A batch held for the record (and for a plain log sent to a file) is written about 50 ms
/// after its first line, long before the task's success: the up-to-date bookkeeping of a task
/// with a large input hashes it at its success (off the loop since session 32,
/// `UpToDateCheck.taskSucceeded(_:recorded:)`), for seconds, before the success is posted. A
/// flowrun killed then (kill -9, a CI's timeout) must leave the lines that came before. The
/// task waits for the test's `go` file after its line, so "not ended yet" is checked while it
/// surely is not, however slow the machine (the hash alone was once over before the check).
@Suite struct LoopFlushBusyLoopTests {
    @Test func aBatchIsWrittenWhileTheLoopHashesALargeInput() async throws {
        let folder = try TemporaryFolder()
        // Sparse: 256 MiB of zeros to hash, on no disk space. The `go` file, not the hash's
        // length, holds the success back (4 GiB once did, and cost the suite ~45 s).
        let big = folder.url.appendingPathComponent("big.bin")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        #expect(truncate(big.path, 256 << 20) == 0)
        let workflow = """
            version: 1
            tasks:
              make: {inputs: [big.bin], outputs: [made.out], shell: 'echo marker-made; while [ ! -e go ]; do sleep 0.05; done; touch made.out'}
            """
        try Data(workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let log = folder.url.appendingPathComponent("log.txt")
        let run = try LiveRun(
            ["-c", "exec \"$0\" run --events plain flow.yaml > log.txt", FlowrunBinary.url.path], in: folder.url, executable: "/bin/sh")
        func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        // The line is written with the task's start, long before the hash ends and the
        // success comes: both files show it while the success is not there yet.
        #expect(await LoopFlushTests.wait { LoopFlushTests.records(in: folder.url).contains("\"line\":\"marker-made\"") })
        #expect(!LoopFlushTests.records(in: folder.url).contains("\"event\":\"task.succeeded\""))
        #expect(await LoopFlushTests.wait { logText().contains("[make] | marker-made\n") })
        #expect(!logText().contains("[make] succeeded"))
        #expect(FileManager.default.createFile(atPath: folder.url.appendingPathComponent("go").path, contents: nil))
        #expect(await run.wait() == 0)
        #expect(LoopFlushTests.records(in: folder.url).contains("\"event\":\"task.succeeded\""))
    }
}
