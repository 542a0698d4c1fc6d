import Foundation
import Testing

/// `flowrun report` and `run --report-html/--trace`, and the job summary under GitHub Actions:
/// the wiring from a run, or its record, to the files a user opens.
@Suite struct ReportTests {
    let workflow = """
        version: 1
        name: ci
        tasks:
          build: {shell: "echo compiling"}
          test: {needs: build, retries: 1, retry_delay: 10ms, queue: tests, priority: high, shell: "echo 'assert <x> failed'; exit 3"}
          deploy: {needs: test, shell: "echo deploying"}
        queues:
          tests: {concurrency: 1}
        """

    func slices(_ trace: String) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(trace.utf8)) as? [String: Any])
        return (object["traceEvents"] as? [[String: Any]] ?? []).filter { $0["ph"] as? String == "X" }
    }

    @Test func aRunWritesItsTimelineItsTraceAndAppendsToTheJobSummary() async throws {
        let folder = try WorkflowFolder(workflow, files: ["summary.md": "## earlier step\n"])
        let summary = folder.url.appendingPathComponent("summary.md").path
        let run = try await FlowrunBinary.run(
            ["run", "--events", "plain", "--report-html", "run.html", "--trace", "run.json", "flow.yaml"], in: folder.url,
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary])
        #expect(run.status == 1, "\(run.stderr)")
        let markdown = try folder.read("summary.md")
        #expect(markdown.hasPrefix("## earlier step\n\n### ❌ flowrun: ci failed in "), "\(markdown)")
        #expect(markdown.contains("| <code>test</code> | exited with status 3 after 2 attempts |"), "\(markdown)")
        #expect(markdown.contains("assert &lt;x&gt; failed"))
        #expect(markdown.contains("3 tasks: 1 succeeded, 1 failed, 1 skipped."))
        // test ran twice: a slice per attempt, each with its exit status, its queue on the last.
        let slices = try slices(try folder.read("run.json"))
        #expect(slices.map { $0["name"] as? String } == ["build", "test", "test"])
        let last = try #require(slices.last?["args"] as? [String: Any])
        #expect(last["queue"] as? String == "tests" && last["exit_status"] as? Int == 3 && last["result"] as? String == "failed")
        // The retried attempt's exit status too (it was null).
        let first = try #require(slices[1]["args"] as? [String: Any])
        #expect(first["result"] as? String == "retried" && first["exit_status"] as? Int == 3, "\(first)")
        let page = try folder.read("run.html")
        #expect(page.contains("\"workflow\":\"ci\"") && page.contains("[\"deploy\",\"skipped\""))

        // The same from the record, afterwards.
        let report = try await FlowrunBinary.run(["report", "--trace", "again.json", "--markdown", "-"], in: folder.url)
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.hasPrefix("### ❌ flowrun: ci failed in "))
        #expect(report.stdout.contains("| <code>test</code> | exited with status 3 after 2 attempts |"))
        #expect(try self.slices(try folder.read("again.json")).map { $0["name"] as? String } == ["build", "test", "test"])
    }

    /// A symlink at a report's path is written through, as `--junit` and `--events-file` do
    /// (issue 12: outputs never destroy): `--report-html`, `--trace` and `report --html` renamed
    /// their file over the link, which became a regular file and left its target as it was.
    @Test func aSymlinkAtAReportPathIsWrittenThroughAndKept() async throws {
        let folder = try WorkflowFolder(workflow, files: ["kept/run.html": "old\n", "kept/run.json": "old\n", "kept/again.html": "old\n"])
        for name in ["run.html", "run.json", "again.html"] {
            try FileManager.default.createSymbolicLink(atPath: folder.url.appendingPathComponent(name).path, withDestinationPath: "kept/\(name)")
        }
        let run = try await FlowrunBinary.run(
            ["run", "--events", "plain", "--report-html", "run.html", "--trace", "run.json", "flow.yaml"], in: folder.url)
        #expect(run.status == 1, "\(run.stderr)")
        let report = try await FlowrunBinary.run(["report", "--html", "again.html"], in: folder.url)
        #expect(report.status == 0, "\(report.stderr)")
        for name in ["run.html", "run.json", "again.html"] {
            let link = folder.url.appendingPathComponent(name).path
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "kept/\(name)", "\(name) is no longer the link")
            #expect(try folder.read("kept/\(name)") != "old\n", "kept/\(name) was not written")
        }
    }

    /// A symlink to a file not made yet (a dangling link) is written through too, as `tee`,
    /// `curl -o` and `--junit` create the file it names; the link was replaced by a regular file.
    @Test func aDanglingSymlinkAtAReportPathCreatesItsTarget() async throws {
        let folder = try WorkflowFolder(workflow, files: ["kept/.keep": ""])
        for name in ["run.html", "run.json", "again.html", "ci.yml"] {
            try FileManager.default.createSymbolicLink(atPath: folder.url.appendingPathComponent(name).path, withDestinationPath: "kept/\(name)")
        }
        let run = try await FlowrunBinary.run(
            ["run", "--events", "plain", "--report-html", "run.html", "--trace", "run.json", "flow.yaml"], in: folder.url)
        #expect(run.status == 1, "\(run.stderr)")
        let report = try await FlowrunBinary.run(["report", "--html", "again.html"], in: folder.url)
        #expect(report.status == 0, "\(report.stderr)")
        let export = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "github", "-o", "ci.yml"], in: folder.url)
        #expect(export.status == 0, "\(export.stderr)")
        for name in ["run.html", "run.json", "again.html", "ci.yml"] {
            let link = folder.url.appendingPathComponent(name).path
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "kept/\(name)", "\(name) is no longer the link")
            #expect(((try? folder.read("kept/\(name)")) ?? "").count > 100, "kept/\(name) was not written")
        }
    }

    /// A dangling link whose target's folder does not exist is refused before the run, as a
    /// missing folder is (`curl -o` fails the same way); nothing is put in the link's place.
    @Test func aDanglingSymlinkIntoAMissingFolderIsRefusedBeforeTheRun() async throws {
        let folder = try WorkflowFolder(workflow)
        let link = folder.url.appendingPathComponent("run.html").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "missing/run.html")
        let run = try await FlowrunBinary.run(["run", "--report-html", "run.html", "flow.yaml"], in: folder.url)
        #expect(run.status == 2, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("run.html"), "\(run.stderr)")
        #expect(!run.stdout.contains("compiling"))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "missing/run.html")
    }

    @Test func reportWithNoOutputWritesTheTimelineOfTheLastRunBesideTheUser() async throws {
        let folder = try WorkflowFolder(workflow)
        _ = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        let report = try await FlowrunBinary.run(["report"], in: folder.url)
        #expect(report.status == 0, "\(report.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("flowrun-report-") }
        #expect(written.count == 1 && written[0].hasSuffix(".html"))
        #expect(report.stderr.contains(written.first ?? "?"))
    }

    @Test func aReportPathThatCannotBeWrittenIsRefusedBeforeTheRun() async throws {
        let folder = try WorkflowFolder(workflow)
        let run = try await FlowrunBinary.run(["run", "--report-html", "missing/run.html", "flow.yaml"], in: folder.url)
        #expect(run.status == 2)
        #expect(run.stderr.contains("missing/run.html"), "\(run.stderr)")
        #expect(!run.stdout.contains("compiling"))
    }

    /// `report --html PATH` into a missing folder is a usage error (exit 2, as `export -o` and
    /// `run --report-html` refuse it), found before any output is written: the timeline asked
    /// for beside it is not written either. It was exit 1, after the outputs before it were written.
    @Test func reportIntoAMissingFolderIsRefusedBeforeAnyOutputIsWritten() async throws {
        let folder = try WorkflowFolder(workflow)
        _ = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        let report = try await FlowrunBinary.run(["report", "--html", "run.html", "--trace", "missing/run.json"], in: folder.url)
        #expect(report.status == 2, "\(report.stderr)")
        #expect(report.stderr.contains("cannot write missing/run.json: No such file or directory"), "\(report.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("run.html").path), "run.html was written")
    }

    /// As a `--junit` report that cannot be written: the run goes on, then says so and exits 1.
    @Test func aJobSummaryThatCannotBeWrittenFailsAnOtherwiseGreenRun() async throws {
        let folder = try WorkflowFolder("version: 1\ntasks:\n  build: {shell: echo compiling}\n")
        let run = try await FlowrunBinary.run(
            ["run", "--events", "plain", "flow.yaml"], in: folder.url,
            environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": "/nonexistent-folder/summary.md"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot write /nonexistent-folder/summary.md"), "\(run.stderr)")
    }

    /// As `run --junit flow.yaml` is refused (issue 12: outputs never destroy data), so is a
    /// report over the recorded run's workflow file, or two reports at one path: `report --html
    /// flow.yaml` replaced the workflow with the HTML, and `--html r --trace r` kept only the trace,
    /// both with exit 0.
    @Test func reportNeverWritesOverTheWorkflowFileNorOneReportOverAnother() async throws {
        let folder = try WorkflowFolder(workflow)
        _ = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        let overWorkflow = try await FlowrunBinary.run(["report", "--html", "./flow.yaml"], in: folder.url)
        #expect(overWorkflow.status == 2, "\(overWorkflow.stderr)")
        #expect(overWorkflow.stderr.contains("--html ./flow.yaml is the workflow file"), "\(overWorkflow.stderr)")
        #expect(try folder.read("flow.yaml") == workflow)
        let twice = try await FlowrunBinary.run(["report", "--html", "r.out", "--trace", "r.out"], in: folder.url)
        #expect(twice.status == 2, "\(twice.stderr)")
        #expect(twice.stderr.contains("--html r.out and --trace r.out are the same file"), "\(twice.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("r.out").path))
    }

    /// A pipe (`/dev/stdout` in a pipeline) is written into, never replaced: two reports into
    /// it destroy nothing, as two at a terminal do not, and were refused as "the same file".
    @Test func twoReportsIntoOnePipeAreWritten() async throws {
        let folder = try WorkflowFolder(workflow)
        _ = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        let both = try await FlowrunBinary.run(["report", "--trace", "/dev/stdout", "--markdown", "/dev/stdout"], in: folder.url)
        #expect(both.status == 0, "\(both.stderr)")
        #expect(both.stdout.contains("\"traceEvents\""), "\(both.stdout)")
        #expect(both.stdout.contains("flowrun: ci "), "\(both.stdout)")
    }

    @Test func reportNamesARunThatDoesNotExist() async throws {
        let folder = try WorkflowFolder(workflow)
        let none = try await FlowrunBinary.run(["report"], in: folder.url)
        #expect(none.status == 2 && none.stderr.contains("no run recorded"), "\(none.stderr)")
        _ = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml"], in: folder.url)
        let wrong = try await FlowrunBinary.run(["report", "1999"], in: folder.url)
        #expect(wrong.status == 2 && wrong.stderr.contains("no run '1999'"), "\(wrong.stderr)")
    }
}
