import Foundation
import Glibc
import Testing

/// The watchdog (`flow-watchdog`) is forked first thing in every run but a dry (or engine-only)
/// one, before the workflow is read: the pages it shares copy-on-write with flowrun are then the
/// few of a process just started, not the plan's (issue 23: forked after the plan was read, it
/// made a 20,000-task no-op take 13,100 page faults, a fifth of its time). Seen while flowrun
/// reads its workflow from a FIFO that the test holds.
@Suite struct WatchdogStartTests {
    @Test(arguments: [
        (["run", "--events", "plain", "flow.fifo"], true), (["run", "--dry-run", "flow.fifo"], false),
        (["run", "--engine-only", "flow.fifo"], false),
    ])
    func theWatchdogIsThereBeforeTheWorkflowIsRead(arguments: [String], watched: Bool) async throws {
        let folder = try TemporaryFolder()
        let fifo = folder.url.appendingPathComponent("flow.fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let run = try LiveRun(arguments, in: folder.url)
        // Opened for writing only once flowrun has it open for reading: it is reading the workflow.
        let writer = try #require(await Self.openForWriting(fifo))
        let children = Self.children(of: run.process.processIdentifier)
        #expect(children.count == (watched ? 1 : 0), "\(children)")
        // The child names itself once it runs: a hang guard, not a timing.
        if watched { #expect(await Self.hasChild(named: "flow-watchdog", of: run.process.processIdentifier), "\(children)") }
        let workflow = Data("version: 1\ntasks:\n  greet: {shell: \"true\"}\n".utf8)
        let written = workflow.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
        close(writer)
        #expect(written == workflow.count)
        #expect(await run.wait(seconds: 120) == 0, "\(run.stderr)")
    }

    /// A run of no shell task has it too (downloads, extractions and combines start no process,
    /// but the plan is not known when it is forked). Seen while the run reads a tar.gz from a
    /// FIFO that the test holds.
    @Test func aRunOfNoShellTaskHasItToo() async throws {
        let folder = try TemporaryFolder()
        try Data("version: 1\ntasks:\n  unpack: {decompress: {from: in.fifo, to: out}}\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))
        let archive = try Self.tarGz(in: folder)
        try #require(mkfifo(folder.url.appendingPathComponent("in.fifo").path, 0o600) == 0)
        let run = try LiveRun(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        // Opened for writing only once flowrun has it open for reading: the run is under way.
        let writer = try #require(await Self.openForWriting(folder.url.appendingPathComponent("in.fifo").path))
        #expect(await Self.hasChild(named: "flow-watchdog", of: run.process.processIdentifier))
        let written = archive.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
        close(writer)
        #expect(written == archive.count)
        #expect(await run.wait(seconds: 120) == 0, "\(run.stderr)")
        #expect(FileManager.default.contents(atPath: folder.url.appendingPathComponent("out/a.txt").path) == Data("x".utf8))
    }

    /// Whether `pid` has a child named `name`, waited for for at most two minutes (a hang guard).
    static func hasChild(named name: String, of pid: pid_t) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if children(of: pid).contains(name) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return children(of: pid).contains(name)
    }

    /// A tar.gz of one file, `a.txt` holding "x".
    static func tarGz(in folder: TemporaryFolder) throws -> Data {
        let maker = Process()
        maker.executableURL = URL(fileURLWithPath: "/bin/sh")
        maker.arguments = ["-c", "printf x > a.txt && tar czf a.tgz a.txt && rm a.txt"]
        maker.currentDirectoryURL = folder.url
        try maker.run()
        maker.waitUntilExit()
        return try Data(contentsOf: folder.url.appendingPathComponent("a.tgz"))
    }

    /// The FIFO's write end, once a reader has it open (until then `open` fails with ENXIO);
    /// nil after two minutes (a hang guard).
    static func openForWriting(_ path: String) async -> Int32? {
        let deadline = ContinuousClock.now + .seconds(120)
        // Tried once more after the deadline: a Task.sleep can resume minutes late when the
        // suite's other tests hold the shared threads, and the reader may long be there by then.
        while true {
            let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 {
                // Blocking writes from here: the archive is larger than nothing, not than a pipe.
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                return descriptor
            }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The names (`comm`) of the processes whose parent is `pid`.
    static func children(of pid: pid_t) -> [String] {
        ChildProcesses.of(pid).compactMap { child in
            FileManager.default.contents(atPath: "/proc/\(child)/comm").map {
                String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
    }
}
