import Foundation
import Glibc
import Testing

/// The outputs of a run (stdout, `--events-file`, `--junit`): a failed write is an error, and
/// no output ever destroys data that was there before.
@Suite struct OutputTests {
    /// Two tasks; `first` leaves a marker file, so that a test can tell whether anything ran.
    static let workflow = """
        version: 1
        tasks:
          first: {shell: "echo one; touch marker"}
          second: {needs: first, shell: "echo two"}
        """

    func folder(_ workflow: String = Self.workflow) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try Data(workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return folder
    }

    /// Runs `executable arguments...` in `folder` with stdout on `standardOutput`, and returns
    /// its exit status and what it wrote on stderr.
    func run(
        _ executable: String, _ arguments: [String], in folder: TemporaryFolder, standardOutput: FileHandle
    )
        async throws -> (status: Int32, stderr: String)
    {
        let url = folder.url
        return try await offThePool { try Self.runBlocking(executable, arguments, in: url, standardOutput: standardOutput) }
    }

    static func runBlocking(
        _ executable: String, _ arguments: [String], in folder: URL, standardOutput: FileHandle
    )
        throws -> (status: Int32, stderr: String)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { $1 }
        let errors = Pipe()
        process.standardOutput = standardOutput
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    func contents(_ folder: TemporaryFolder, _ name: String) -> String? {
        FileManager.default.contents(atPath: folder.url.appendingPathComponent(name).path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test(arguments: [["--junit", "full"], ["--events-file", "full"], ["--events", "plain"], ["--events", "jsonl"]])
    func aFullDiskIsReportedOnceAndFailsTheRun(_ arguments: [String]) async throws {
        let folder = try folder()
        // /dev/full takes nothing: each write fails with ENOSPC. Without an output option it is
        // stdout. The options name it through a link of the test's own, so that a flowrun that
        // renames its report over the path replaces the link, not the machine's /dev/full.
        try FileManager.default.createSymbolicLink(atPath: folder.url.appendingPathComponent("full").path, withDestinationPath: "/dev/full")
        let fileOption = arguments[0] != "--events"
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try await run(
            FlowrunBinary.url.path, ["flow.yaml"] + arguments, in: folder,
            standardOutput: fileOption ? FileHandle.nullDevice : full)
        let output = fileOption ? "full" : "standard output"
        #expect(result.status == 1)
        #expect(result.stderr == "flowrun: error: cannot write \(output): No space left on device\n")
        // The run itself went on to its end.
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("marker").path))
    }

    /// The contract gives every command but a run "0 or 2" (`schema` and `completion` just 0):
    /// one whose output cannot be written exits 2, not the 1 of a failed task. `--help` and
    /// `--version` too, as GNU's `ls --help >/dev/full` fails.
    @Test(arguments: [
        ["run", "--dry-run", "flow.yaml"], ["validate", "flow.yaml"], ["graph", "flow.yaml"], ["list", "flow.yaml"], ["schema"],
        ["runs"], ["logs"], ["completion", "bash"], ["completion", "fish"], ["--help"], ["--version"], ["help", "run"], ["run", "--help"],
    ])
    func aCommandThatPrintsToAFullDiskFailsWithTwo(_ arguments: [String]) async throws {
        let folder = try folder()
        if arguments == ["runs"] || arguments == ["logs"] {
            let recorded = try await run(FlowrunBinary.url.path, ["run", "flow.yaml"], in: folder, standardOutput: FileHandle.nullDevice)
            #expect(recorded.status == 0, "\(recorded.stderr)")
        }
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try await run(FlowrunBinary.url.path, arguments, in: folder, standardOutput: full)
        #expect(result.status == 2)
        #expect(result.stderr == "flowrun: error: cannot write standard output: No space left on device\n")
    }

    /// A print larger than stdio's buffer is written at once, and when that write fails, glibc
    /// keeps nothing to flush again: `flowrun export FILE --to github >/dev/full` (or `| head`)
    /// exited 0 with nothing written. The error flag of stdout is checked too, as GNU's
    /// `close_stdout` does.
    @Test func aLargeExportToAFullDiskFails() async throws {
        let tasks = (0..<40).map { "  t\($0): {shell: \"true\"}\n" }.joined()
        let folder = try folder("version: 1\nfail_fast: false\ntasks:\n" + tasks)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try await run(FlowrunBinary.url.path, ["export", "flow.yaml", "--to", "github"], in: folder, standardOutput: full)
        #expect(result.status == 2)
        #expect(result.stderr.hasSuffix("flowrun: error: cannot write standard output: No space left on device\n"), "\(result.stderr)")
    }

    /// The contract lists `export` and `report` as "0 or 2": an output of theirs that cannot be
    /// written (a file through a link to /dev/full, or stdout there) exits 2, not 1, the status
    /// of a failed task, when none ran.
    @Test(arguments: [
        ["export", "flow.yaml", "--to", "github", "-o", "full"], ["export", "flow.yaml", "--to", "github"],
        ["report", "--html", "full"], ["report", "--trace", "run.json", "--markdown", "full"], ["report", "--markdown", "-"],
    ])
    func exportAndReportThatCannotWriteExitTwo(_ arguments: [String]) async throws {
        let folder = try folder()
        try FileManager.default.createSymbolicLink(atPath: folder.url.appendingPathComponent("full").path, withDestinationPath: "/dev/full")
        if arguments[0] == "report" {
            let recorded = try await run(FlowrunBinary.url.path, ["run", "flow.yaml"], in: folder, standardOutput: FileHandle.nullDevice)
            #expect(recorded.status == 0, "\(recorded.stderr)")
        }
        let toStandardOutput = !arguments.contains("full")
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try await run(
            FlowrunBinary.url.path, arguments, in: folder, standardOutput: toStandardOutput ? full : FileHandle.nullDevice)
        #expect(result.status == 2, "\(result.stderr)")
        let output = toStandardOutput ? "standard output" : "full"
        #expect(result.stderr.hasSuffix("flowrun: error: cannot write \(output): No space left on device\n"), "\(result.stderr)")
    }

    @Test func aFolderAsTheReportIsRefusedBeforeAnyTaskRuns() async throws {
        let folder = try folder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("reports"), withIntermediateDirectories: false)
        let result = try await FlowrunBinary.run(["flow.yaml", "--junit", "reports"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr == "flowrun: error: cannot write the JUnit report: cannot create reports: Is a directory\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("marker").path))
    }

    @Test(arguments: [
        ["--junit", "flow.yaml"], ["--events-file", "./flow.yaml"], ["--junit", "link.yaml"],
        ["--junit", "a.xml", "--events-file", "./a.xml"], ["--junit", "old.xml", "--events-file", "old-link.xml"],
    ])
    func anOutputThatIsTheWorkflowOrTheOtherOutputIsRefusedBeforeTheRun(_ arguments: [String]) async throws {
        let folder = try folder()
        let fileManager = FileManager.default
        try fileManager.createSymbolicLink(atPath: folder.url.appendingPathComponent("link.yaml").path, withDestinationPath: "flow.yaml")
        try Data("old report\n".utf8).write(to: folder.url.appendingPathComponent("old.xml"))
        try fileManager.createSymbolicLink(atPath: folder.url.appendingPathComponent("old-link.xml").path, withDestinationPath: "old.xml")
        let result = try await FlowrunBinary.run(["flow.yaml"] + arguments, in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("flowrun: error: "), "\(result.stderr)")
        #expect(result.stderr.contains(arguments.last!), "\(result.stderr)")
        #expect(contents(folder, "flow.yaml") == Self.workflow)
        #expect(contents(folder, "old.xml") == "old report\n")
        #expect(!fileManager.fileExists(atPath: folder.url.appendingPathComponent("marker").path))
        #expect(!fileManager.fileExists(atPath: folder.url.appendingPathComponent("a.xml").path))
    }

    /// `flowrun flow.yaml --events-file x > x`: stdout and the events file wrote over each other
    /// and the first events were lost; `--junit x >> x` renamed the report over the log. A
    /// standard output or error redirected to a regular file is an output too, whatever path
    /// (a link, `/dev/stdout`) the option gives it by.
    @Test(arguments: [
        ("--events-file x > x", "--events-file x and standard output"),
        ("--junit x >> x", "--junit x and standard output"),
        ("--events-file link > x", "--events-file link and standard output"),
        ("--junit hard > x", "--junit hard and standard output"),
        ("--events-file /dev/stdout > x", "--events-file /dev/stdout and standard output"),
        ("--events-file x 2> x", "--events-file x and standard error"),
    ])
    func anOutputThatIsTheRedirectedStandardOutputIsRefusedBeforeTheRun(_ options: String, _ message: String) async throws {
        let folder = try folder()
        try Data("old log\n".utf8).write(to: folder.url.appendingPathComponent("x"))
        try FileManager.default.createSymbolicLink(atPath: folder.url.appendingPathComponent("link").path, withDestinationPath: "x")
        try FileManager.default.linkItem(at: folder.url.appendingPathComponent("x"), to: folder.url.appendingPathComponent("hard"))
        let result = try await run(
            "/bin/sh", ["-c", "exec \"$0\" flow.yaml \(options)", FlowrunBinary.url.path], in: folder, standardOutput: FileHandle.nullDevice)
        // With `2> x`, the message is in x.
        let stderr = result.stderr + (options.contains("2>") ? contents(folder, "x") ?? "" : "")
        #expect(result.status == 2)
        #expect(stderr.hasPrefix("flowrun: error: \(message) (\(folder.url.path)/x) are the same file"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("marker").path))
    }

    /// A terminal, a pipe or `/dev/null` is never refused, nor one log for stdout and stderr.
    @Test(arguments: ["--events-file events.jsonl > log 2>&1", "--events-file /dev/stdout | cat > log", "--junit /dev/null > /dev/null"])
    func standardOutputOnAnotherFileOrAPipeRuns(_ options: String) async throws {
        let folder = try folder()
        let result = try await run(
            "/bin/sh", ["-c", "\"$0\" flow.yaml \(options)", FlowrunBinary.url.path], in: folder, standardOutput: FileHandle.nullDevice)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("marker").path))
    }

    @Test func theReportIsWrittenThroughAFIFOWhichStaysAFIFO() async throws {
        let folder = try folder()
        let fifo = folder.url.appendingPathComponent("report.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = LockedData()
        let reader = Thread {
            received.set(FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data())
        }
        reader.start()
        let result = try await FlowrunBinary.run(["flow.yaml", "--junit", fifo], in: folder.url)
        // Should flowrun not have opened the FIFO, opening it here lets the reader's open return.
        let deadline = Date().addingTimeInterval(120)  // a hang guard only
        while !received.isSet, Date() < deadline {
            let release = open(fifo, O_WRONLY | O_NONBLOCK)
            if release >= 0 { close(release) }
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(result.status == 0, "\(result.stderr)")
        let report = received.text
        #expect(report.hasPrefix("<?xml"), "\(report)")
        #expect(report.contains("<testcase classname=\"flow\" name=\"second\""))
        #expect(report.hasSuffix("</testsuites>\n"))
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func aReportBehindASymbolicLinkReplacesItsTargetAndTheLinkStays() async throws {
        let folder = try folder()
        let reports = folder.url.appendingPathComponent("reports")
        try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: false)
        try Data("old report\n".utf8).write(to: reports.appendingPathComponent("junit.xml"))
        try FileManager.default.createSymbolicLink(
            atPath: folder.url.appendingPathComponent("latest.xml").path,
            withDestinationPath: "reports/junit.xml")
        let result = try await FlowrunBinary.run(["flow.yaml", "--junit", "latest.xml"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: folder.url.appendingPathComponent("latest.xml").path)
                == "reports/junit.xml")
        let report = try #require(contents(folder, "reports/junit.xml"))
        #expect(report.contains("<testcase classname=\"flow\" name=\"first\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: reports.path) == ["junit.xml"])  // no temporary file left
    }

    @Test func anOldReportSurvivesWhenTheNewOneCannotBeWrittenWhole() async throws {
        // A file size limit of one block (`ulimit -f 1`: 512 bytes in dash, 1 KiB in bash), with
        // SIGXFSZ ignored so that a write past it fails with EFBIG, stands in for a full disk:
        // the report of 30 tasks and the events are larger than that.
        var workflow = "version: 1\ntasks:\n"
        for index in 1...30 { workflow += "  task\(index): {shell: echo hello}\n" }
        let folder = try folder(workflow)
        try Data("<old report/>\n".utf8).write(to: folder.url.appendingPathComponent("report.xml"))
        let result = try await run(
            "/bin/sh",
            [
                "-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\"", FlowrunBinary.url.path,
                "flow.yaml", "--junit", "report.xml", "--events-file", "events.jsonl", "--no-record",
            ],
            in: folder, standardOutput: FileHandle.nullDevice)
        #expect(result.status == 1)
        #expect(
            result.stderr.split(separator: "\n").sorted() == [
                "flowrun: error: cannot write events.jsonl: File too large",
                "flowrun: error: cannot write report.xml: File too large",
            ])
        #expect(contents(folder, "report.xml") == "<old report/>\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["events.jsonl", "flow.yaml", "report.xml"])
        // The events file holds whole lines only: no event stops half-way.
        let events = try #require(contents(folder, "events.jsonl"))
        #expect(events.isEmpty || events.hasSuffix("\n"))
    }

    @Test func aClosedStandardOutputCancelsTheRunAndLeavesNoTaskBehind() async throws {
        // As `flowrun ... | head -1`: the reader goes away while a task still runs and writes.
        let marker = UniqueSleep.seconds()
        let folder = try folder(
            """
            version: 1
            tasks:
              talker: {shell: "sleep \(marker) & while :; do echo tick; sleep 0.05; done"}
              after: {needs: talker, shell: "true"}
            """)
        let output = Pipe()
        let process = Process()
        process.executableURL = FlowrunBinary.url
        process.arguments = ["flow.yaml", "--events-file", "events.jsonl"]
        process.currentDirectoryURL = folder.url
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let reader = output.fileHandleForReading
        try await offThePool {
            var seen = ""
            repeat {
                let data = reader.availableData
                if data.isEmpty { break }
                seen += String(decoding: data, as: UTF8.self)
            } while !seen.contains("tick")
            try reader.close()
        }
        let deadline = Date().addingTimeInterval(120)  // a hang guard only
        while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        #expect(process.terminationStatus == 141)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message == "", "quiet, as a program SIGPIPE ends")
        let events = try EventStream(try #require(contents(folder, "events.jsonl")))
        #expect(events.finals == ["talker": "task.cancelled", "after": "task.skipped"])
        #expect(events.named("task.cancelled").first?["reason"] as? String == "standard output was closed")
        #expect(try RunTests().processesMatching("sleep \(marker)").isEmpty)
    }
}

/// Bytes handed over by another thread.
private final class LockedData: @unchecked Sendable {  // `lock` guards `data`.
    private let lock = NSLock()
    private var data: Data?

    func set(_ data: Data) { lock.withLock { self.data = data } }
    var isSet: Bool { lock.withLock { data != nil } }
    var text: String { lock.withLock { String(decoding: data ?? Data(), as: UTF8.self) } }
}
