import Foundation
import Glibc
import Testing

/// `decompress` tasks through the flowrun binary.
@Suite struct DecompressRunTests {
    /// Runs `python3 -c script folder` in `folder`.
    func python(_ script: String, in folder: URL) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import io, os, sys, tarfile, zipfile\n" + script, folder.path]
        process.currentDirectoryURL = folder
        try process.run()
        try await offThePool { process.waitUntilExit() }
        try #require(process.terminationStatus == 0)
    }

    /// The names in `url`, sorted; not flowrun's own run records.
    func listing(_ url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0 != ".flowrun" }.sorted()
    }

    @Test func theDemoArchiveUnpacksWithStripComponentsAndReportsProgress() async throws {
        let folder = try TemporaryFolder()
        let asset = FlowrunBinary.repositoryRoot.appendingPathComponent("workflows/assets/demo-app-1.0.tar.gz")
        try FileManager.default.copyItem(at: asset, to: folder.url.appendingPathComponent("app.tar.gz"))
        try Data(
            """
            version: 1
            tasks:
              unpack: {decompress: {from: app.tar.gz, to: out/demo-app, strip_components: 1, format: tar.gz}}
              install: {needs: unpack, shell: "test -f out/demo-app/install.sh && cat out/demo-app/VERSION"}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let events = try EventStream(result.stdout)
        #expect(events.finals == ["unpack": "task.succeeded", "install": "task.succeeded"])
        #expect(events.lines(of: "install").first?.hasPrefix("1.0") == true)
        #expect(listing(folder.url.appendingPathComponent("out/demo-app")) == ["README.txt", "VERSION", "install.sh", "logo.png"])
        let progress = events.named("task.progress").filter { $0.task == "unpack" }
        #expect(!progress.isEmpty && progress.allSatisfy { $0["unit"] as? String == "bytes" })
        #expect(listing(folder.url.appendingPathComponent("out")) == ["demo-app"], "no staging folder left")
    }

    @Test func theUpgradeDemoRunsOfflineFromAnotherFolder() async throws {
        // Its paths hold ${VERSION} and are relative to the workflow's folder, not the current one.
        let folder = try TemporaryFolder()
        let copy = folder.url.appendingPathComponent("workflows")
        try FileManager.default.copyItem(at: FlowrunBinary.repositoryRoot.appendingPathComponent("workflows"), to: copy)
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "workflows/upgrade.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let events = try EventStream(result.stdout)
        #expect(events.finals["unpack"] == "task.succeeded")
        #expect(listing(copy.appendingPathComponent("out/demo-app")) == ["README.txt", "VERSION", "install.sh", "logo.png"])
    }

    @Test func aZipSlipFailsTheTaskNamingTheEntryAndWritesNothing() async throws {
        let folder = try TemporaryFolder()
        try await python(
            """
            os.chdir(sys.argv[1])
            with zipfile.ZipFile('evil.zip', 'w') as z:
                z.writestr('fine.txt', 'ok'); z.writestr('../../evil.txt', 'x')
            """, in: folder.url)
        try Data("version: 1\ntasks:\n  unpack: {decompress: {from: evil.zip, to: out}}\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(result.status == 1)
        let failed = try EventStream(result.stdout).named("task.failed").first
        #expect((failed?["reason"] as? String)?.contains("'../../evil.txt'") == true, "\(result.stdout)")
        #expect(listing(folder.url) == ["evil.zip", "flow.yaml"])
    }

    @Test func theCeilingFieldsReachTheExtraction() async throws {
        let folder = try TemporaryFolder()
        try await python(
            """
            os.chdir(sys.argv[1])
            with zipfile.ZipFile('two.zip', 'w') as z:
                z.writestr('a.txt', 'a'); z.writestr('b.txt', 'b')
            """, in: folder.url)
        try Data("version: 1\ntasks:\n  unpack: {decompress: {from: two.zip, to: out, max_files: 1}}\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(result.status == 1)
        let failed = try EventStream(result.stdout).named("task.failed").first
        #expect((failed?["reason"] as? String)?.contains("max_files") == true, "\(result.stdout)")
        #expect(listing(folder.url) == ["flow.yaml", "two.zip"])
    }

    @Test func ctrlCDuringAnExtractionLeavesToAsItWasAndNoStagingFolder() async throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: out.appendingPathComponent("keep.txt"))
        // The archive comes through a FIFO from a writer that never ends it: the extraction
        // is still running whenever the interrupt comes, however fast the machine is.
        let fifo = folder.url.appendingPathComponent("endless.tar").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        writer.arguments = [
            "python3", "-c",
            """
            import io, sys, tarfile
            class Zeros(io.RawIOBase):
                def readable(self): return True
                def readinto(self, b): b[:] = bytes(len(b)); return len(b)
            try:
                with open(sys.argv[1], 'wb') as f, tarfile.open(fileobj=f, mode='w|') as t:
                    info = tarfile.TarInfo('huge.bin'); info.size = 1 << 40
                    t.addfile(info, Zeros())
            except (BrokenPipeError, OSError):
                pass
            """, fifo,
        ]
        try writer.run()
        defer { if writer.isRunning { writer.terminate() } }
        try Data("version: 1\ntasks:\n  unpack: {decompress: {from: endless.tar, to: out}}\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))
        let run = try LiveRun(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(await run.waitFor("\"event\":\"task.progress\"", seconds: 60))
        run.send(SIGINT)
        #expect(await run.wait() == 130)
        let events = try EventStream(run.stdout)
        #expect(events.finals == ["unpack": "task.cancelled"], "\(run.stdout)")
        #expect(listing(out) == ["keep.txt"])
        #expect(listing(folder.url) == ["endless.tar", "flow.yaml", "out"], "no staging folder left")
    }

    /// A FIFO nobody writes to: the extraction waited in open(2), where no cancel reaches, so
    /// Ctrl-C left the run waiting out the grace (600 s here; the hang guard's 120 s ended it)
    /// and the staging folder behind. Now it waits where a cancel is seen, and cleans up.
    @Test func ctrlCWhileAFifoHasNoWriterEndsTheRunAndLeavesNoStagingFolder() async throws {
        let folder = try TemporaryFolder()
        #expect(mkfifo(folder.url.appendingPathComponent("in.tar.gz").path, 0o600) == 0)
        try Data("version: 1\ntasks:\n  unpack: {decompress: {from: in.tar.gz, to: out}}\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))
        let run = try LiveRun(["run", "--events", "jsonl", "--grace", "600", "flow.yaml"], in: folder.url)
        #expect(await run.waitFor("\"task.started\",\"task\":\"unpack\""))
        run.send(SIGINT)
        #expect(await run.wait() == 130, "\(run.stderr)")
        #expect(try EventStream(run.stdout).finals == ["unpack": "task.cancelled"], "\(run.stdout)")
        #expect(listing(folder.url) == ["flow.yaml", "in.tar.gz"], "no staging folder left")
    }
}
