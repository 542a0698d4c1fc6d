import Foundation
import Testing

/// What flowrun says about why it runs what it runs: `--dry-run` names the file that changed,
/// `--resume --dry-run` says what the resume keeps, and `-v` echoes each command and names the
/// tasks kept, as go-task's `--verbose` does; a secret value never shows.
@Suite struct ExplainTests {
    typealias Project = UpToDateTests.Project

    /// The lines of a `--dry-run`'s check section, trimmed: `d  would run: changed input src/d.txt`.
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// `TASK  TEXT`, as the sections align them.
    static func line(_ lines: [String], of task: String) -> String? {
        lines.first { $0.hasPrefix(task + " ") }.map {
            String($0.dropFirst(task.count)).trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func dryRunNamesTheFirstChangedInputAndOutput() async throws {
        let project = try Project(
            UpToDateTests.chain + "  pack: {inputs: ['parts/*.txt'], outputs: [all.txt], shell: 'cat parts/*.txt > all.txt'}\n",
            files: ["src/a.txt": "one\n", "src/d.txt": "dee\n", "parts/1.txt": "1\n", "parts/2.txt": "2\n"])
        _ = try await project.run()
        try project.write("src/d.txt", "changed\n")
        try project.write("build/c.out", "edited by hand\n")
        try project.write("parts/3.txt", "3\n")
        let dry = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: project.url)
        #expect(dry.status == 0, "\(dry.stderr)")
        let lines = Self.lines(dry.stdout)
        #expect(Self.line(lines, of: "d") == "would run: changed input src/d.txt", "\(dry.stdout)")
        #expect(Self.line(lines, of: "c") == "would run: changed output build/c.out", "\(dry.stdout)")
        #expect(Self.line(lines, of: "b") == nil, "up to date: \(dry.stdout)")
        #expect(Self.line(lines, of: "pack") == "would run: changed input parts/3.txt", "\(dry.stdout)")

        // A file gone from under a glob: the log cannot tell which, so the pattern is named.
        _ = try await project.run()
        try project.remove("parts/2.txt")
        let gone = try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: project.url)
        #expect(
            Self.line(Self.lines(gone.stdout), of: "pack") == "would run: changed input under parts/*.txt (a file added or removed)",
            "\(gone.stdout)")
    }

    /// A path that took a secret value from `--env` is shown as the plan shows it: `***`.
    @Test func aChangedPathHoldingASecretIsMasked() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              copy: {inputs: ['${DATA_KEY}/in.txt'], outputs: [out.txt], shell: 'cat "$DATA_KEY/in.txt" > out.txt'}

            """, files: ["hushhush/in.txt": "one\n"])
        _ = try await project.run(["--env", "DATA_KEY=hushhush"])
        try project.write("hushhush/in.txt", "two\n")
        let dry = try await FlowrunBinary.run(["run", "--dry-run", "--env", "DATA_KEY=hushhush", "flow.yaml"], in: project.url)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(Self.line(Self.lines(dry.stdout), of: "copy") == "would run: changed input ***/in.txt", "\(dry.stdout)")
        #expect(!dry.stdout.contains("hushhush"), "\(dry.stdout)")
    }

    /// A file a glob found, named after a secret of the task's environment (the dotenv file's
    /// `DEPLOY_TOKEN`) that no field took: `--dry-run` and `--resume --dry-run` name it with the
    /// secret as `***`, as the task's output lines show it.
    @Test func aChangedFileNamedAfterAnEnvironmentSecretIsMasked() async throws {
        let token = "s3cr3t-dotenv"
        let project = try Project(
            """
            version: 1
            dotenv: [.env]
            tasks:
              pack: {inputs: ['parts/*.txt'], outputs: [all.txt], shell: 'cat parts/*.txt > all.txt'}

            """, files: [".env": "DEPLOY_TOKEN=\(token)\n", "parts/1.txt": "1\n"])
        _ = try await project.run()
        try project.write("parts/\(token).txt", "2\n")
        for words in [["run", "--dry-run", "flow.yaml"], ["run", "--resume", "--dry-run", "flow.yaml"]] {
            let dry = try await FlowrunBinary.run(words, in: project.url)
            #expect(dry.status == 0, "\(dry.stderr)")
            let line = Self.line(Self.lines(dry.stdout), of: "pack")
            #expect(line?.hasPrefix("would run: changed input parts/***.txt") == true, "\(words): \(dry.stdout)")
            #expect(!dry.stdout.contains(token), "\(words): \(dry.stdout)")
        }
    }

    @Test func verboseDryRunListsTheTasksUpToDate() async throws {
        let project = try UpToDateTests.chainProject()
        _ = try await project.run()
        try project.write("src/d.txt", "changed\n")
        let quiet = Self.lines(try await FlowrunBinary.run(["run", "--dry-run", "flow.yaml"], in: project.url).stdout)
        #expect(Self.line(quiet, of: "a") == nil)
        let dry = try await FlowrunBinary.run(["run", "--dry-run", "-v", "flow.yaml"], in: project.url)
        let lines = Self.lines(dry.stdout)
        for task in ["a", "b", "c"] { #expect(Self.line(lines, of: task) == "up to date", "\(dry.stdout)") }
        #expect(lines.contains("3 tasks up to date"), "\(dry.stdout)")
    }

    /// go-task's `--verbose`: `task: [NAME] COMMAND` as a task starts, `Task "NAME" is up to date`.
    @Test func verbosePlainLogEchoesEachCommandAndNamesTheTasksUpToDate() async throws {
        let project = try UpToDateTests.chainProject()
        _ = try await project.run()
        try project.write("src/d.txt", "changed\n")
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "-v", "flow.yaml"], in: project.url)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let started = try #require(lines.firstIndex(of: "[d] started (shell)"), "\(result.stdout)")
        #expect(lines[started + 1] == "[d] $ mkdir -p build && cat src/d.txt > build/d.out", "\(result.stdout)")
        for task in ["a", "b", "c"] { #expect(lines.contains("[\(task)] up to date"), "\(result.stdout)") }
        #expect(lines.contains("3 tasks up to date"), "the count stays: \(result.stdout)")

        // Without -v, neither.
        try project.write("src/d.txt", "again\n")
        let quiet = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: project.url)
        #expect(!quiet.stdout.contains("[d] $"), "\(quiet.stdout)")
        #expect(!quiet.stdout.contains("[a] up to date"), "\(quiet.stdout)")
    }

    @Test func verboseEchoesADownloadWithItsSecretMasked() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              fetch:
                download: {url: 'file://${FLOWRUN_WORKFLOW_DIR}/src/${FILE_TOKEN}.txt', to: out/copy.txt}
              show: {needs: fetch, shell: [cat, out/copy.txt]}

            """, files: ["src/hushhush.txt": "payload\n"])
        let result = try await FlowrunBinary.run(
            ["run", "--events", "plain", "-v", "--env", "FILE_TOKEN=hushhush", "flow.yaml"], in: project.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("[fetch] download file://\(project.url.path)/src/***.txt -> \(project.url.path)/out/copy.txt"), "\(result.stdout)")
        #expect(lines.contains("[show] $ cat out/copy.txt"), "\(result.stdout)")
        #expect(!result.stdout.contains("hushhush"), "\(result.stdout)")
        #expect(lines.contains("[show] | payload"), "\(result.stdout)")
    }

    /// GitHub's "re-run failed jobs" shows what it will re-run before it does: so does this.
    @Test func resumeDryRunSaysWhatTheResumeKeepsAndWhyTheRestRuns() async throws {
        let project = try ResumeTests.Project(ResumeTests.workflow, files: ["b.sh": "echo broken; exit 1\n"])
        #expect(try await project.run(["flow.yaml"]).status == 1)
        let failedRun = try #require(try await project.runIDs().first)
        try project.write("flow.yaml", ResumeTests.workflow.replacingOccurrences(of: "'echo d'", with: "'echo dee'"))

        let dry = try await FlowrunBinary.run(["run", "--dry-run", "--resume", "flow.yaml"], in: project.url)
        #expect(dry.status == 0, "\(dry.stderr)")
        let lines = Self.lines(dry.stdout)
        #expect(lines.contains("Resume of run \(failedRun) (what --resume would keep):"), "\(dry.stdout)")
        #expect(Self.line(lines, of: "a") == "kept: done in run \(failedRun), unchanged since", "\(dry.stdout)")
        #expect(Self.line(lines, of: "b") == "would run: failed in run \(failedRun) (exited with status 1)", "\(dry.stdout)")
        #expect(Self.line(lines, of: "c")?.hasPrefix("would run: ") == true, "\(dry.stdout)")
        #expect(
            Self.line(lines, of: "d") == "would run: changed since run \(failedRun) (its command, env, inputs, needs or outputs)",
            "\(dry.stdout)")
        #expect(lines.contains("1 task kept, 3 would run"), "\(dry.stdout)")
        #expect(try await project.runIDs() == [failedRun], "a dry run records no run")

        // And the resume does what it said.
        try project.write("b.sh", "echo fixed\n")
        let resumed = try await project.run(["--resume", "flow.yaml"])
        #expect(resumed.ran == ["b", "c", "d"])
        #expect(Set(resumed.doneBefore.keys) == ["a"])

        // An unknown run is refused, as for a run.
        let unknown = try await FlowrunBinary.run(["run", "--dry-run", "--resume", "20990101-000000-000", "flow.yaml"], in: project.url)
        #expect(unknown.status == 2, "\(unknown.stdout)\(unknown.stderr)")
        #expect(unknown.stderr.contains("no run 20990101-000000-000"), "\(unknown.stderr)")
    }

    /// With inputs and outputs, the resume names the file that changed, as the up-to-date check does.
    @Test func resumeDryRunNamesTheChangedInput() async throws {
        let project = try ResumeTests.Project(
            """
            version: 1
            tasks:
              count: {inputs: [words.txt], outputs: [count.txt], shell: 'wc -w < words.txt > count.txt'}
              report: {needs: count, shell: 'cat count.txt'}
              fail: {needs: report, shell: 'exit 1'}

            """, files: ["words.txt": "one two\n"])
        #expect(try await project.run(["flow.yaml"]).status == 1)
        let run = try #require(try await project.runIDs().first)
        try project.write("words.txt", "one two three\n")
        let dry = try await FlowrunBinary.run(["run", "--dry-run", "--resume", "flow.yaml"], in: project.url)
        let lines = Self.lines(dry.stdout)
        #expect(Self.line(lines, of: "count") == "would run: changed input words.txt since run \(run)", "\(dry.stdout)")
        #expect(Self.line(lines, of: "report") == "would run: needs 'count', which runs", "\(dry.stdout)")
        #expect(Self.line(lines, of: "fail") == "would run: failed in run \(run) (exited with status 1)", "\(dry.stdout)")
    }
}
