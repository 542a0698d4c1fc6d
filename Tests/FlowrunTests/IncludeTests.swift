import Foundation
import Testing

/// `include: {NS: path}`: another file's tasks as `NS:ID`.
@Suite struct IncludeTests {
    func folder(lib: String) throws -> WorkflowFolder {
        try WorkflowFolder(
            """
            version: 1
            queues: {net: {concurrency: 2}}
            include: {lib: lib/tasks.yaml}
            tasks:
              app: {needs: [lib:build], shell: echo app}
            """, files: ["lib/tasks.yaml": lib])
    }

    @Test func includedTasksRunInTheirFolderWithTheirNeedsInsideTheNamespace() async throws {
        let folder = try folder(
            lib: """
                version: 1
                env: {WHO: lib}
                tasks:
                  prepare: {shell: 'echo "$WHO in $(basename "$PWD")"'}
                  build: {needs: prepare, shell: 'echo built'}
                """)
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "--no-record", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stderr)")
        let events = try EventStream(result.stdout)
        #expect(events.startOrder == ["lib:prepare", "lib:build", "app"])
        #expect(events.lines(of: "lib:prepare") == ["lib in lib"])
    }

    @Test func anIncludedFileIsCheckedWithItsOwnLinesAndCyclesAndQueueConflictsAreRefused() async throws {
        let folder = try folder(
            lib: """
                version: 1
                include: {back: ../flow.yaml}
                queues: {net: {concurrency: 3}}
                tasks:
                  build: {shell: 'true', neds: x}
                """)
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                lib/tasks.yaml:2:17: error: include cycle: flow.yaml -> lib/tasks.yaml -> flow.yaml
                lib/tasks.yaml:3:10: error: queue 'net' is declared with another concurrency (2) at flow.yaml:2:10
                lib/tasks.yaml:3:10: note: an included file's queues are merged by name: give both the same limit, or another name
                lib/tasks.yaml:5:26: error: unknown key 'neds' in task 'build'
                lib/tasks.yaml:5:26: note: did you mean 'needs'?

                """)
    }

    /// Every file named alike, as go-task's Taskfile.yml: the chain said `flowrun.yaml ->
    /// flowrun.yaml -> flowrun.yaml`; each file is now named from the root file's folder.
    @Test func anIncludeCycleNamesEachFileFromTheRootFolder() async throws {
        let folder = try WorkflowFolder(
            "version: 1\ninclude: {a: a/flow.yaml}\ntasks:\n  t: {shell: 'true'}\n",
            files: [
                "a/flow.yaml": "version: 1\ninclude: {b: b/flow.yaml}\ntasks:\n  t: {shell: 'true'}\n",
                "a/b/flow.yaml": "version: 1\ninclude: {top: ../../flow.yaml}\ntasks:\n  t: {shell: 'true'}\n",
            ])
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "a/b/flow.yaml:2:16: error: include cycle: flow.yaml -> a/flow.yaml -> a/b/flow.yaml -> flow.yaml\n")
    }

    /// An include naming a folder is reported at its entry, as a missing file is: before, the
    /// error named only the folder (`lib: error: cannot read the file: Is a directory`), not
    /// the file and line that named it.
    @Test func anIncludeNamingAFolderIsReportedAtItsEntry() async throws {
        let folder = try folder(lib: "version: 1\ntasks:\n  build: {shell: 'true'}\n")
        try folder.write("flow.yaml", "version: 1\ninclude: {lib: lib}\ntasks:\n  app: {needs: [lib:build], shell: echo app}\n")
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                flow.yaml:2:16: error: included file 'lib' is a folder: name a workflow file in it
                flow.yaml:4:17: error: task 'app' needs 'lib:build', which is not a task in this file

                """)
    }

    /// One file included under two names is read twice; what is wrong in it is said once, at
    /// its line (before, each error and the queue conflict were printed twice).
    @Test func aFileIncludedUnderTwoNamesHasEachProblemReportedOnce() async throws {
        let folder = try WorkflowFolder(
            """
            version: 1
            queues: {net: {concurrency: 3}}
            include: {a: lib/tasks.yaml, b: lib/tasks.yaml}
            tasks:
              app: {needs: [a:build, b:build], shell: echo app}
            """,
            files: ["lib/tasks.yaml": "version: 1\nqueues: {net: {concurrency: 2}}\ntasks:\n  build: {shell: 'true', neds: x}\n"])
        let result = try await FlowrunBinary.run(["validate", "flow.yaml"], in: folder.url)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                lib/tasks.yaml:2:10: error: queue 'net' is declared with another concurrency (3) at flow.yaml:2:10
                lib/tasks.yaml:2:10: note: an included file's queues are merged by name: give both the same limit, or another name
                lib/tasks.yaml:4:26: error: unknown key 'neds' in task 'build'
                lib/tasks.yaml:4:26: note: did you mean 'needs'?

                """)
    }
}
