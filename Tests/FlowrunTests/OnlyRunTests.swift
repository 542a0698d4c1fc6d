import Foundation
import Testing

/// `flowrun run --only TASK... [FILE]`, what exported jobs call.
@Suite struct OnlyRunTests {
    static let workflow = """
        version: 1
        tasks:
          make: {shell: "mkdir -p out && echo made > out/made.txt", outputs: [out/made.txt]}
          use: {needs: make, shell: "cat out/made.txt > out/used.txt"}
          flaky: {retries: 3, retry_delay: 0s, shell: "echo try >> tries.txt; exit 1"}

        """

    @Test func onlyRunsTheNamedTaskWhenItsNeedsOutputsAreThere() async throws {
        let folder = try WorkflowFolder(Self.workflow, files: ["out/made.txt": "from another machine\n"])
        let result = try await FlowrunBinary.run(["run", "--only", "use", "flow.yaml", "--events", "plain"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try folder.read("out/used.txt") == "from another machine\n")
        #expect(!result.stdout.contains("[make]"))
    }

    @Test func theFileMayComeLastAfterTheTasks() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["run", "--only", "make", "use", "flow.yaml", "--events", "plain"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try folder.read("out/used.txt") == "made\n")
    }

    @Test func aMissingOutputOfANeedRefusesTheRunNamingTheFile() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["run", "flow.yaml", "--only", "use"], in: folder.url)
        #expect(result.status == 2)
        let path = folder.url.appendingPathComponent("out/made.txt").path
        #expect(result.stderr.contains("task 'use' needs 'make', taken as done, but its output \(path) is missing"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out/used.txt").path))
    }

    /// A need that is a group task stands for its own needs, as a phony target stands for its
    /// prerequisites in make: their outputs must be there. Only the group's own (none) were
    /// looked for, so the run started and `use` failed on the missing file.
    @Test func aMissingOutputBehindAGroupNeedRefusesTheRun() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            tasks:
              make: {shell: "mkdir -p out && echo made > out/made.txt", outputs: [out/made.txt]}
              deps: {needs: make}
              all: {needs: deps}
              use: {needs: all, shell: "cat out/made.txt > out/used.txt"}

            """)
        let result = try await FlowrunBinary.run(["run", "flow.yaml", "--only", "use"], in: folder.url)
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        let path = folder.url.appendingPathComponent("out/made.txt").path
        #expect(
            result.stderr.contains("task 'use' needs 'make' (through the group 'all'), taken as done, but its output \(path) is missing"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("out/used.txt").path))
    }

    @Test func anUnknownTaskExits2WithDidYouMean() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["run", "--only", "mkae", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("no task named 'mkae'"))
        #expect(result.stderr.contains("did you mean 'make'?"))
    }

    @Test func noRetryRunsEachTaskOnceForAnEngineThatRetries() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["run", "--only", "flaky", "flow.yaml", "--no-retry"], in: folder.url)
        #expect(result.status == 1)
        #expect(try folder.read("tries.txt") == "try\n")
    }

    @Test func tasksNamedBothWaysAreRefused() async throws {
        let folder = try WorkflowFolder(Self.workflow)
        let result = try await FlowrunBinary.run(["run", "flow.yaml", "make", "--only", "use"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("name the tasks after --only"))
    }
}
