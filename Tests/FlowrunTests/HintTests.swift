import Foundation
import Testing

/// Mistakes a go-task or GitHub Actions user makes on the command line and in the file, and
/// the hint flowrun gives.
@Suite struct HintTests {
    func folder(with text: String, named name: String = "Taskfile.yaml") throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try Data(text.utf8).write(to: folder.url.appendingPathComponent(name))
        return folder
    }

    @Test(arguments: [("valdate", "validate"), ("grpah", "graph"), ("rn", "run"), ("shcema", "schema")])
    func aMistypedCommandGetsDidYouMean(typed: String, meant: String) async throws {
        let folder = try folder(with: "version: 1\ntasks:\n  t: {shell: \"true\"}\n", named: "x.yaml")
        let result = try await FlowrunBinary.run([typed, "x.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("did you mean '\(meant)'?"))
        #expect(!result.stderr.contains("cannot read"))
        #expect(result.stdout == "")
    }

    @Test func aFileNamedLikeACommandStillRuns() async throws {
        let folder = try folder(with: "version: 1\ntasks:\n  t: {shell: [echo, ran]}\n", named: "valdate")
        let result = try await FlowrunBinary.run(["valdate"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("ran"))
    }

    /// As `task lint` runs go-task's lint, `flowrun lint` runs the task, not a hint about `list`.
    @Test func aTaskOfTheFileFoundNamedLikeACommandRunsIt() async throws {
        let folder = try folder(with: "version: 1\ntasks:\n  lint: {shell: [echo, linted]}\n", named: "flowrun.yaml")
        let result = try await FlowrunBinary.run(["lint"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("linted"))
        #expect(!result.stderr.contains("did you mean"))
    }

    /// In a GitHub Actions job the problem is also an annotation on the file's line, as a
    /// linter's are.
    @Test func underGitHubActionsAProblemIsAnAnnotationOnItsLine() async throws {
        let folder = try folder(with: "version: 1\ntasks:\n  build:\n    deps: [lint]\n    shell: 'make, all'\n")
        let result = try await FlowrunBinary.run(["validate", "Taskfile.yaml"], in: folder.url, environment: ["GITHUB_ACTIONS": "true"])
        #expect(result.status == 2)
        #expect(
            result.stderr.split(separator: "\n").contains(
                "::error file=Taskfile.yaml,line=4,col=5::unknown key 'deps' in task 'build'%0A'deps' is go-task's; flowrun says 'needs: [a, b]'"),
            "\(result.stderr)")
        #expect(result.stderr.contains("Taskfile.yaml:4:5: error: unknown key 'deps'"), "the line a person reads stays")
    }

    @Test func aMissingFileFarFromAnyCommandIsStillReportedAsAFile() async throws {
        let folder = try TemporaryFolder()
        let result = try await FlowrunBinary.run(["deploy-prod.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("deploy-prod.yaml"))
        #expect(!result.stderr.contains("did you mean"))
    }

    @Test func aTaskfileHabitGetsFlowrunsKeyAtItsLine() async throws {
        let folder = try folder(
            with: """
                version: 1
                tasks:
                  lint: {shell: "true"}
                  build:
                    deps: [lint]
                    shell: go build ./...
                """)
        let result = try await FlowrunBinary.run(["validate", "Taskfile.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                Taskfile.yaml:5:5: error: unknown key 'deps' in task 'build'
                Taskfile.yaml:5:5: note: 'deps' is go-task's; flowrun says 'needs: [a, b]'

                """)
    }

    static let argvOfCommands = """
        version: 1
        tasks:
          build:
            shell: ["make build", "make test"]
        """

    @Test func validateWarnsOfCommandsWrittenAsArgvAndStillSaysOK() async throws {
        let folder = try folder(with: Self.argvOfCommands)
        let result = try await FlowrunBinary.run(["validate", "Taskfile.yaml"], in: folder.url)
        #expect(result.status == 0)
        #expect(result.stdout == "Taskfile.yaml: ok (1 task)\n")
        #expect(
            result.stderr == """
                Taskfile.yaml:4:13: warning: the first item of 'shell' of task 'build', 'make build', is run as a program of that name, without a shell
                Taskfile.yaml:4:13: note: did you mean the string form 'shell: make build && make test'?

                """)
    }

    @Test func theRunWarnsAndStillGoes() async throws {
        let folder = try folder(with: Self.argvOfCommands)
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "Taskfile.yaml"], in: folder.url)
        #expect(result.stderr.hasPrefix("Taskfile.yaml:4:13: warning: "))
        let events = try EventStream(result.stdout)
        #expect(events.startOrder == ["build"])  // it ran, and failed: there is no program "make build"
        #expect(events.finals["build"] == "task.failed")
        #expect(result.status == 1)
    }

    @Test func theDryRunShowsTheWarningAndThePlan() async throws {
        let folder = try folder(with: Self.argvOfCommands)
        let result = try await FlowrunBinary.run(["run", "--dry-run", "Taskfile.yaml"], in: folder.url)
        #expect(result.status == 0)
        #expect(result.stderr.contains(": warning: "))
        #expect(result.stdout.contains("  1. build  shell"))
    }
}
