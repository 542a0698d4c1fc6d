import Foundation
import Testing

/// A task with `needs` and no action: it groups its needs, as go-task's task with only `deps`.
@Suite struct GroupTaskTests {
    static let checks = """
        version: 1
        tasks:
          unit: {shell: echo unit}
          lint: {shell: echo lint}
          other: {shell: echo other}
          test: {needs: [unit, lint]}
          after: {needs: test, shell: echo after}
        """

    @Test func aGroupSucceedsOnceItsNeedsHaveWithOneEventAndNothingRun() async throws {
        let (result, events, _) = try await RunTests().run(Self.checks)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(events.finals["test"] == "task.succeeded")
        // No task.started, no output: the group ran nothing.
        #expect(events.events.filter { $0.task == "test" }.map(\.name) == ["task.ready", "task.succeeded"])
        let succeeded = try #require(events.index(of: "task.succeeded", task: "test"))
        #expect(try #require(events.index(of: "task.succeeded", task: "unit")) < succeeded)
        #expect(try #require(events.index(of: "task.succeeded", task: "lint")) < succeeded)
        #expect(try #require(events.index(of: "task.started", task: "after")) > succeeded)
    }

    @Test func namingTheGroupRunsItsNeedsOnly() async throws {
        let (result, events, _) = try await RunTests().run(Self.checks, ["test"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(events.finals.keys) == ["unit", "lint", "test"])
    }

    @Test func aGroupWhoseNeedFailsIsSkippedAndAWhenAlwaysGroupStillEnds() async throws {
        let (result, events, _) = try await RunTests().run(
            """
            version: 1
            fail_fast: false
            tasks:
              unit: {shell: exit 3}
              test: {needs: unit}
              done: {needs: test, when: always}
              failed: {needs: unit, when: failure}
            """)
        #expect(result.status == 1)
        #expect(events.finals["test"] == "task.skipped")
        #expect(events.finals["done"] == "task.succeeded")
        #expect(events.finals["failed"] == "task.succeeded")
    }

    @Test func thePlainLogShowsAGroupAsOneLine() async throws {
        let folder = try WorkflowFolder(Self.checks)
        let result = try await FlowrunBinary.run(["run", "--events", "plain", "flow.yaml", "test"], in: folder.url)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").filter { $0.hasPrefix("[test]") }
        #expect(lines.count == 1, "\(result.stdout)")
        #expect(lines.first?.hasPrefix("[test] succeeded in ") == true)
    }

    @Test func aTaskWithNeitherNeedsNorActionIsStillAnError() async throws {
        let folder = try WorkflowFolder("version: 1\ntasks:\n  a: {shell: 'true'}\n  b: {description: nothing}\n")
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("flow.yaml:4:3: error: task 'b' has no action"))
    }
}
