import FlowModel
import FlowTestSupport
import Testing

@testable import FlowEngine

/// The engine reads each task's id, kind, `when` and `continue_on_error` from `TaskFacts`, made
/// once from the plan: they must be the plan's, task for task.
@Suite struct TaskFactsTests {
    @Test func theFactsAreThePlansTaskForTask() throws {
        let plan = try PlannedTasks.plan(
            """
            version: 1
            tasks:
              fetch: {download: {url: 'https://example.com/a', to: a}}
              build: {needs: [fetch], shell: 'make', continue_on_error: true}
              all: {needs: [build]}
              undo: {needs: [build], when: failure, shell: 'git checkout .'}
              tidy: {needs: [build], when: always, shell: ['rm', '-f', 'x']}
            """)
        let facts = TaskFacts.of(plan)
        #expect(facts.map(\.id) == plan.tasks.map(\.id))
        #expect(facts.map(\.id) == ["fetch", "build", "all", "undo", "tidy"])
        #expect(facts.map(\.kind) == ["download", "shell", "group", "shell", "shell"])
        #expect(facts.map(\.isGroup) == [false, false, true, false, false])
        #expect(facts.map(\.when) == [.success, .success, .success, .failure, .always])
        #expect(facts.map(\.continueOnError) == [false, true, false, false, false])
    }
}
