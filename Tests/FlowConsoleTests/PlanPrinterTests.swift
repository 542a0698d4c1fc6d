import FlowConsole
import FlowLoading
import FlowModel
import FlowPlanning
import Testing

@Suite struct PlanPrinterTests {
    /// 3,000 tasks in 429 waves of 7: each task needs the last one of the 7 before, so waves
    /// change inside chunks, on their edges and on the edges of rounds.
    func plan() throws -> Plan {
        var text = "version: 1\ntasks:\n"
        for index in 0..<3_000 {
            let needs = index >= 7 ? "needs: [t\(index - index % 7 - 1)], " : ""
            text += "  t\(index): {\(needs)shell: [\"echo\", \"\(index)\"]}\n"
        }
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        let workflow = try #require(loaded.workflow)
        return try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
    }

    func written(_ plan: Plan, tasksPerChunk: Int) -> String {
        var bytes: [UInt8] = []
        PlanPrinter().write(plan, tasksPerChunk: tasksPerChunk) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aPlanWrittenInChunksReadsAsOneWrittenWhole() throws {
        let plan = try plan()
        let whole = written(plan, tasksPerChunk: .max)
        #expect(plan.waveCount == 429)
        for tasksPerChunk in [1, 7, 100, 1024] {
            #expect(written(plan, tasksPerChunk: tasksPerChunk) == whole, "\(tasksPerChunk) tasks per chunk")
        }
        // Each task names its wave, and the tasks are numbered 1 to 3,000 in order.
        let lines = whole.split(separator: "\n")
        #expect(lines.filter { $0.hasSuffix("  shell  wave 429") }.count == 4)
        let numbers = lines.compactMap { $0.hasPrefix("  ") && !$0.hasPrefix("   ") ? Int($0.dropFirst(2).prefix { $0 != "." }) : nil }
        #expect(numbers == Array(1...3_000))
    }

    @Test func tasksAreNumberedInTheGivenOrder() throws {
        let plan = try plan()
        let order = Array(plan.tasks.indices.reversed())
        var bytes: [UInt8] = []
        PlanPrinter().write(plan, order: order, tasksPerChunk: 100) { bytes.append(contentsOf: $0) }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains("  1. t2999  shell  wave 429"))
        #expect(lines.contains("  3000. t0  shell  wave 1"))
    }
}
