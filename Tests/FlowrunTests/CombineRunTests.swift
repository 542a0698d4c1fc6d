import Foundation
import Glibc
import Testing

/// Combine tasks through the `flowrun` binary: with the engine's events, after earlier tasks.
@Suite struct CombineRunTests {
    /// The width and height in a PNG's IHDR.
    static func pngSize(_ url: URL) throws -> (Int, Int) {
        let bytes = [UInt8](try Data(contentsOf: url))
        try #require(bytes.count > 24 && bytes[1...3] == [0x50, 0x4e, 0x47][...] && bytes[12..<16] == Array("IHDR".utf8)[...])
        func word(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    @Test func aCombineReadsWhatAnEarlierTaskMadeThroughAPattern() async throws {
        let (result, events, folder) = try await RunTests().run(
            """
            version: 1
            tasks:
              make:
                shell: "mkdir -p parts && printf 'b\\\\n' > parts/b.txt && printf 'a\\\\n' > parts/a.txt"
              join:
                needs: [make]
                combine: {inputs: ["parts/*.txt"], to: out/joined.txt}
              pack:
                needs: [make]
                combine: {inputs: ["parts/*.txt"], to: out/parts.tar.gz, format: tar.gz}
            """)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(events.finals == ["make": "task.succeeded", "join": "task.succeeded", "pack": "task.succeeded"])
        let joined = folder.url.appendingPathComponent("out/joined.txt")
        #expect(try String(contentsOf: joined, encoding: .utf8) == "a\nb\n")
        let progress = events.named("task.progress").filter { $0.task == "join" }.last
        #expect(progress?["done"] as? Int == 4 && progress?["unit"] as? String == "bytes")
        let listing = Process()
        listing.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        listing.arguments = ["tar", "-tzf", folder.url.appendingPathComponent("out/parts.tar.gz").path]
        let pipe = Pipe()
        listing.standardOutput = pipe
        try listing.run()
        let names = try await offThePool {
            defer { listing.waitUntilExit() }
            return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        #expect(names == "parts/a.txt\nparts/b.txt\n")
    }

    /// A release tarball as `git archive --prefix=app-$VERSION/` makes it, from the files under
    /// build/: up to date on a rerun, made again when the prefix is changed.
    @Test func aReleaseArchiveNamesItsEntriesUnderBaseWithThePrefixAndFollowsItsChanges() async throws {
        let project = try WorkflowFolder(
            """
            version: 1
            env: {VERSION: "1.0"}
            tasks:
              release:
                combine: {inputs: ["build/*"], to: dist/app.tar.gz, format: tar.gz, base: build, prefix: "app-${VERSION}/"}
            """, files: ["build/app": "binary\n", "build/README": "read me\n"])
        func run(_ arguments: [String] = []) async throws -> (ran: Bool, names: String) {
            let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"] + arguments, in: project.url)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let events = try EventStream(result.stdout)
            let listing = Process()
            listing.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            listing.arguments = ["bsdtar", "-tf", project.url.appendingPathComponent("dist/app.tar.gz").path]
            let pipe = Pipe()
            listing.standardOutput = pipe
            try listing.run()
            let names = try await offThePool {
                defer { listing.waitUntilExit() }
                return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            }
            return (!events.named("task.started").isEmpty, names)
        }
        let first = try await run()
        #expect(first.ran && first.names == "app-1.0/README\napp-1.0/app\n")
        let again = try await run()
        #expect(!again.ran, "nothing changed: up to date")
        // Only the prefix changes, not the env nor the files: its fingerprint must tell.
        let workflow = try project.read("flow.yaml").replacingOccurrences(of: "prefix: \"app-", with: "prefix: \"pkg-")
        try project.write("flow.yaml", workflow)
        let next = try await run()
        #expect(next.ran && next.names == "pkg-1.0/README\npkg-1.0/app\n", "a new prefix makes a new archive")
    }

    @Test func inputsAreOpenedOneAtATimeSoThatMoreThanTheDescriptorLimitCanBeCombined() async throws {
        let folder = try TemporaryFolder()
        let parts = folder.url.appendingPathComponent("parts")
        try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        for index in 0..<200 { try Data("\(index)\n".utf8).write(to: parts.appendingPathComponent(String(format: "%03d", index))) }
        try Data("version: 1\ntasks:\n  join: {combine: {inputs: [\"parts/*\"], to: all.txt}}\n".utf8)
            .write(to: folder.url.appendingPathComponent("flow.yaml"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -n 64 && exec \"$0\" run flow.yaml", FlowrunBinary.url.path]
        process.currentDirectoryURL = folder.url
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        try await offThePool { process.waitUntilExit() }

        #expect(process.terminationStatus == 0)
        let joined = try String(contentsOf: folder.url.appendingPathComponent("all.txt"), encoding: .utf8)
        #expect(joined == (0..<200).map { "\($0)\n" }.joined())
    }

    @Test func aPatternMatchingNothingFailsTheTaskWithItsName() async throws {
        let (result, events, folder) = try await RunTests().run(
            """
            version: 1
            tasks:
              join: {combine: {inputs: ["logs/*.log"], to: all.log}}
            """)
        #expect(result.status == 1)
        let failed = try #require(events.named("task.failed").first)
        #expect(failed["task"] as? String == "join")
        #expect(failed["reason"] as? String == "input pattern 'logs/*.log' matches no file", "\(failed.fields)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != ".flowrun" } == ["flow.yaml"])
    }

    @Test func theImagesDemoLaysItsTwoImagesOutInARow() async throws {
        // workflows/images.yaml's combine task, on copies of its assets (its downloads are
        // another action's).
        let folder = try TemporaryFolder()
        let assets = FlowrunBinary.repositoryRoot.appendingPathComponent("workflows/assets")
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("out"), withIntermediateDirectories: true)
        for name in ["left.png", "right.png"] {
            try FileManager.default.copyItem(at: assets.appendingPathComponent(name), to: folder.url.appendingPathComponent("out/\(name)"))
        }
        let demo = try String(contentsOf: FlowrunBinary.repositoryRoot.appendingPathComponent("workflows/images.yaml"), encoding: .utf8)
        let combine = try #require(demo.range(of: "  combine:\n")).lowerBound
        let show = try #require(demo.range(of: "  show:\n")).lowerBound
        let workflow = "version: 1\ntasks:\n" + demo[combine..<show].replacingOccurrences(of: "needs: [left, right]", with: "needs: []")
        try Data(workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))

        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)

        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try Self.pngSize(folder.url.appendingPathComponent("out/side-by-side.png")) == (128, 64))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("out").path).sorted()
        #expect(names == ["left.png", "right.png", "side-by-side.png"])
    }

    /// 64 GiB of holes in `folder`: gzipped, minutes of work however fast the machine, and no
    /// disk used.
    static func makeHoles(in folder: TemporaryFolder) throws {
        let fd = open(folder.url.appendingPathComponent("holes.bin").path, O_WRONLY | O_CREAT, 0o644)
        try #require(fd >= 0 && ftruncate(fd, 64 << 30) == 0)
        close(fd)
    }

    @Test func aTimedOutCombineFailsAndLeavesNoTemporaryFile() async throws {
        let folder = try TemporaryFolder()
        try Self.makeHoles(in: folder)
        try Data(
            """
            version: 1
            tasks:
              pack: {timeout: 1, combine: {inputs: [holes.bin], to: out/holes.tar.gz, format: tar.gz}}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))

        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)

        #expect(result.status == 1)
        let failed = try #require(try EventStream(result.stdout).named("task.failed").first)
        #expect((failed["reason"] as? String)?.contains("timed out") == true, "\(failed.fields)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("out").path) == [])
    }

    @Test func anInterruptedCombineLeavesNoTemporaryFileAndNoOutput() async throws {
        let folder = try TemporaryFolder()
        try Self.makeHoles(in: folder)
        try Data(
            """
            version: 1
            tasks:
              pack: {combine: {inputs: [holes.bin], to: out/holes.tar.gz, format: tar.gz}}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let run = try LiveRun(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        #expect(await run.waitFor("\"task.progress\""))

        run.send(SIGINT)

        #expect(await run.wait() == 130)
        let events = try EventStream(run.stdout)
        #expect(events.finals == ["pack": "task.cancelled"])
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("out").path)
        #expect(left == [], "\(left)")
    }
}
