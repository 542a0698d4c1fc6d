import FlowEngine
import FlowLoading
import FlowModel
import FlowPlanning
import Testing

/// The order `--dry-run` numbers tasks in: the scheduler's own, at a global limit of 1.
@Suite struct StartOrderTests {
    func startOrder(_ text: String) throws -> [TaskID] {
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        let workflow = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
        let order = Scheduler.startOrder(of: plan)
        #expect(order.sorted() == Array(plan.tasks.indices))
        return order.map { plan.tasks[$0].id }
    }

    @Test func priorityFirstThenFileOrderAfterNeeds() throws {
        let order = try startOrder(
            """
            version: 1
            queues: {io: {concurrency: 1}}
            tasks:
              thumbnails: {priority: very-low, shell: "true"}
              resize: {shell: "true"}
              encode: {priority: low, shell: "true"}
              fetch-index: {queue: io, priority: very-high, shell: "true"}
              write-cache: {queue: io, priority: high, shell: "true"}
              upload: {needs: [thumbnails], priority: very-high, shell: "true"}
            """)
        #expect(order == ["fetch-index", "write-cache", "resize", "encode", "thumbnails", "upload"])
    }

    @Test func aTaskOnlyAFailureWouldStartIsListedWhereTheRunSkipsIt() throws {
        let order = try startOrder(
            """
            version: 1
            tasks:
              build: {shell: "true"}
              page-someone: {needs: [build], when: failure, priority: very-high, shell: "true"}
              test: {needs: [build], shell: "true"}
            """)
        #expect(order == ["build", "page-someone", "test"])
    }
}
