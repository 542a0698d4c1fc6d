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
