import Foundation
import Glibc
import Testing

/// `flowrun export FILE --to github|argo [-o PATH]`: the wiring, the user's view, and the round
/// trip of workflows/ci.yaml.
@Suite struct ExportCommandTests {
    static let workflow = """
        version: 1
        name: site
        queues:
          net: {concurrency: 1}
        tasks:
          fetch: {queue: net, shell: "echo a > a.txt", outputs: [a.txt]}
          build: {needs: fetch, shell: "cat a.txt"}

        """

    @Test func exportWritesToStandardOutputAndNamesWhatDoesNotCarryOverOnStderr() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "github"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("jobs:\n  fetch:\n"))
        #expect(result.stdout.contains("run: flowrun run flow.yaml --only=build\n"))
        #expect(result.stderr.contains("flowrun: not carried over: queue 'net' (concurrency 1; fetch): GitHub has no job queue"))
    }

    @Test func dashOWritesTheFileAndDryRunWritesNothing() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let dry = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "argo", "--image", "img:1", "-o", "wf.yaml", "--dry-run"], in: folder.url)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("maps:\n  tasks -> DAG tasks: 2\n"))
        #expect(dry.stdout.contains("  queue -> semaphore (ConfigMap site-flowrun-queues): net\n"))
        #expect(dry.stdout.contains("does not carry over:\n  concurrency: not set"))
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("wf.yaml").path))
        let written = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "argo", "--image", "img:1", "-o", "wf.yaml"], in: folder.url)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout == "")
        #expect(try folder.read("wf.yaml").contains("kind: Workflow\n"))
    }

    /// `-o` at a FIFO or a device (`-o /dev/stdout`, a pipe) writes into it, as `tee` and
    /// `report --html` do. The export renamed its temporary file over it instead: run as root,
    /// `-o /dev/full` left a regular file at /dev/full, and `-o /dev/stdout` would have put one
    /// in place of /dev/stdout.
    @Test func dashOIntoAFifoWritesIntoItAndLeavesTheFifo() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let fifo = folder.url.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Open for reading first, without waiting for a writer, so that flowrun's open finds one.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(reader >= 0)
        defer { close(reader) }
        let result = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "github", "-o", "pipe"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "-o replaced the FIFO")
        var received = [UInt8](repeating: 0, count: 1 << 16)
        let count = read(reader, &received, received.count)
        let expected = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "github"], in: folder.url).stdout
        #expect(String(decoding: received.prefix(max(0, count)), as: UTF8.self) == expected)
    }

    /// `-o` at a symlink writes the file it points to (whole, beside it), as `--junit` does, and
    /// keeps the link: a workflow kept elsewhere and linked into `.github/workflows/` stays linked.
    @Test func dashOAtASymlinkWritesItsTargetAndKeepsTheLink() async throws {
        let folder = try WorkflowFolder(Self.workflow, files: ["shared/ci.yml": "old\n"])
        let link = folder.url.appendingPathComponent("ci.yml").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "shared/ci.yml")
        let result = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "github", "-o", "ci.yml"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "shared/ci.yml", "-o replaced the link")
        #expect(try folder.read("shared/ci.yml").contains("jobs:\n  fetch:\n"))
    }

    /// `-o` naming the workflow file itself replaced it with the export, exit 0: refused before
    /// anything is written, as `run --junit flow.yaml` is (issue 12: outputs never destroy data).
    @Test func dashONeverWritesOverTheWorkflowFile() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        for engine in [["github"], ["argo", "--image", "img:1"]] {
            let result = try await FlowrunBinary.run(["export", "flow.yaml", "--to"] + engine + ["-o", "./flow.yaml"], in: folder.url)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("-o ./flow.yaml is the workflow file"), "\(result.stderr)")
            #expect(try folder.read("flow.yaml") == Self.workflow)
        }
    }

    /// `-o` into a folder that does not exist is refused, naming the path, as `curl -o` and
    /// `tar -f` refuse it and as `report` and `run --junit` do: it made the folder instead
    /// (`curl --create-dirs` is an opt-in). A usage error: exit 2, nothing made.
    @Test func dashOIntoAMissingFolderIsRefusedAndMakesNothing() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        for engine in [["github"], ["argo", "--image", "img:1"]] {
            let result = try await FlowrunBinary.run(["export", "flow.yaml", "--to"] + engine + ["-o", "missing/ci.yml"], in: folder.url)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("cannot write missing/ci.yml: No such file or directory"), "\(result.stderr)")
            #expect(result.stdout == "")
            #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("missing").path), "the folder was made")
        }
    }

    /// A self-hosted runner is picked by several labels (`runs-on: [self-hosted, linux, x64]`).
    /// `--runs-on` took one: given again, the last silently replaced the first. Each given now
    /// adds a label; one stays a plain string.
    @Test func runsOnGivenTwiceListsBothLabels() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let many = try await FlowrunBinary.run(
            ["export", "flow.yaml", "--to", "github", "--runs-on", "self-hosted", "--runs-on", "linux"], in: folder.url)
        #expect(many.status == 0, "\(many.stderr)")
        #expect(many.stdout.contains("    runs-on: [self-hosted, linux]\n"), "\(many.stdout)")
        let one = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "github", "--runs-on", "ubuntu-24.04"], in: folder.url)
        #expect(one.stdout.contains("    runs-on: ubuntu-24.04\n"), "\(one.stdout)")
    }

    @Test func anEnvValueGivenToExportIsPassedOnAndASecretOneIsNamed() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "github", "--env", "API_TOKEN=abc"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("run: flowrun run flow.yaml --env API_TOKEN=abc --only=build\n"))
        #expect(result.stderr.contains("flowrun: not carried over: --env API_TOKEN: its value is written into the export in clear"))
    }

    /// Argo replaces every `{{...}}` in a template's args with its own variables, and has no
    /// escape for it: `--env 'FMT={{.Name}}'` reached the task as something else (or Argo refused
    /// the workflow: "failed to resolve {{.Name}}"), and stderr said nothing. It is named now.
    @Test func anArgoExportNamesAnEnvValueThatArgoWouldSubstitute() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(
            ["export", "flow.yaml", "--to", "argo", "--image", "img:1", "--env", "FMT={{.Name}}", "--env", "PLAIN=x"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "flowrun: not carried over: --env FMT: its value holds '{{', which Argo replaces with its own variables in the args (it has no escape)"),
            "\(result.stderr)")
        #expect(!result.stderr.contains("--env PLAIN"))
        let github = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "github", "--env", "FMT={{.Name}}"], in: folder.url)
        #expect(!github.stderr.contains("--env FMT"), "\(github.stderr)")
    }

    @Test func argoNeedsAnImage() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["export", "flow.yaml", "--to", "argo"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--to argo needs --image IMAGE"))
    }

    /// A flowrun run of workflows/ci.yaml (the engine alone, every task succeeding) and a
    /// simulated run of its export visit the same tasks, in a compatible order.
    @Test(arguments: ["github", "argo"]) func ciRoundTripVisitsTheTasksInACompatibleOrder(_ engine: String) async throws {
        let folder = try TemporaryFolder()
        let events = folder.url.appendingPathComponent("events.jsonl").path
        let exported = folder.url.appendingPathComponent("ci-export.yaml").path
        let root = FlowrunBinary.repositoryRoot
        let run = try await FlowrunBinary.run(
            ["run", "workflows/ci.yaml", "--engine-only", "--no-record", "--events", "jsonl", "--events-file", events], in: root)
        #expect(run.status == 0, "\(run.stderr)")
        let image = engine == "argo" ? ["--image", "img:1"] : []
        let export = try await FlowrunBinary.run(["export", "workflows/ci.yaml", "--to", engine, "-o", exported] + image, in: root)
        #expect(export.status == 0, "\(export.stderr)")
        let check = try await RunTests.python(["Tests/FlowExportTests/validate_export.py", "order", engine, exported, "workflows/ci.yaml", events])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("ok: 6 tasks in a compatible order"))
        // The check can fail: an export where test no longer waits for build-tests.
        let text = try String(contentsOfFile: exported, encoding: .utf8)
        let (edge, loose) = engine == "argo" ? ("depends: build-tests.Succeeded\n", "depends: deps.Succeeded\n") : ("needs: [build-tests]\n", "needs: [deps]\n")
        #expect(text.contains(edge))
        try Data(text.replacingOccurrences(of: edge, with: loose).utf8).write(to: URL(fileURLWithPath: exported))
        let broken = try await RunTests.python(["Tests/FlowExportTests/validate_export.py", "order", engine, exported, "workflows/ci.yaml", events])
        #expect(broken.status == 1)
        #expect(broken.output.contains("the export may start test before its need build-tests has finished"), "\(broken.output)")
    }
}
