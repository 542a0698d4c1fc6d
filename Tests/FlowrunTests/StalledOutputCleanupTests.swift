import Foundation
import Glibc
import Testing

/// Ctrl-C while standard output is a full pipe nobody reads: flowrun exits once only writing
/// is left, but a download, decompress or combine task still running or cleaning up is more
/// than writing, though it has no process group.
@Suite struct StalledOutputCleanupTests {
    func listing(_ url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0 != ".flowrun" }.sorted()
    }

    /// The extraction waits for a writer to its FIFO, its staging folder made. flowrun exited
    /// 0.5 s after the Ctrl-C (`loud`'s group gone, stdout stalled), leaving the staging folder
    /// and no final event. (The wait was in open(2) then, where no cancel reached it; it is now
    /// in a poll that sees the cancel, so the extraction ends and cleans up at once.)
    @Test func ctrlCWithAFullStdoutWaitsForAnExtractionToRemoveItsStagingFolder() async throws {
        let folder = try TemporaryFolder()
        let fifo = folder.url.appendingPathComponent("later.tar").path
        try #require(mkfifo(fifo, 0o600) == 0)
        try Data(
            """
            version: 1
            concurrency: 2
            tasks:
              loud: {shell: "head -c 3000000 /dev/zero | tr '\\\\0' x | fold -w 100; exec sleep 1000"}
              unpack: {decompress: {from: later.tar, to: out}}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let unread = Pipe()
        let run = try LiveRun(
            ["run", "--grace", "60", "--events", "plain", "flow.yaml"], in: folder.url, standardOutput: unread)
        // Until the pipe is full and the staging folder is there (hang guards only).
        let deadline = ContinuousClock.now + .seconds(600)
        var output = pollfd(fd: unread.fileHandleForWriting.fileDescriptor, events: Int16(POLLOUT), revents: 0)
        while poll(&output, 1, 0) == 1, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        while listing(folder.url) == ["flow.yaml", "later.tar"], ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        run.send(SIGINT)
        #expect(await run.wait(seconds: 120) == 130)
        #expect(listing(folder.url) == ["flow.yaml", "later.tar"], "no staging folder left, `out` not made")
        withExtendedLifetime(unread) {}
    }
}
