import FlowExport
import FlowPlanning
import Testing

/// Grouping tasks into at most N jobs: each task once, every need in an earlier job or earlier in its own.
@Suite struct JobGroupsTests {
    static func workflow(_ count: Int, needs: (Int) -> [Int]) -> String {
        var text = "version: 1\ntasks:\n"
        for index in 0..<count {
            let list = needs(index).map { "t\($0)" }.joined(separator: ", ")
            text += "  t\(index): {needs: [\(list)], shell: \"true\"}\n"
        }
        return text
    }

    static let shapes: [(String, Int, @Sendable (Int) -> [Int])] = [
        ("wide", 1000, { _ in [] }),
        ("chain", 1000, { $0 == 0 ? [] : [$0 - 1] }),
        // Each need once: a file naming one twice is refused (`needs: [t0, t0]` for t1).
        ("dag", 2000, { index in index == 0 ? [] : Array(Set([(index * 7919) % index, index / 2].filter { $0 < index })).sorted() }),
        ("few", 40, { $0 == 0 ? [] : [$0 - 1] }),
    ]

    @Test(arguments: shapes.map { ($0.0, $0.1) }) func groupsKeepEveryTaskOnceAndNeedsPointBack(_ name: String, _ count: Int) throws {
        let shape = Self.shapes.first { $0.0 == name }!
        let plan = try ExportFixture.plan(Self.workflow(count, needs: shape.2))
        let groups = JobGroups.group(plan, limit: 256)
        #expect(groups.count <= 256)
        if count <= 256 { #expect(groups.count == count) }
        var job = [Int](repeating: -1, count: plan.tasks.count)
        var place = [Int](repeating: -1, count: plan.tasks.count)
        for (number, tasks) in groups.enumerated() {
            for (position, task) in tasks.enumerated() {
                #expect(job[task] == -1)
                job[task] = number
                place[task] = position
            }
        }
        #expect(!job.contains(-1))
        for (index, task) in plan.tasks.enumerated() {
            for need in task.needs {
                #expect(job[need] < job[index] || (job[need] == job[index] && place[need] < place[index]))
            }
        }
    }
}
