import FlowEngine
import FlowExport
import FlowModel
import FlowPlanning
import Testing

/// The exported jobs run the tasks flowrun runs: for small graphs and every outcome of their
/// tasks, the engine's scheduler decides which tasks run, and GitHub's reading of each job's
/// `if:` (GitHubConditionEvaluator) must decide the same.
@Suite struct GitHubConditionTests {
    /// What flowrun does with `plan` when the tasks in `failing` fail if they run: each task's
    /// result by id, as GitHub would show its job's (success, failure or skipped).
    static func flowrunResults(_ plan: Plan, failing: Set<String>, failFast: Bool) -> [String: String] {
        var scheduler = Scheduler(plan: plan, globalLimit: 64, failFast: failFast)
        var result: [String: String] = [:]
        var started: [Int] = []
        func apply(_ actions: [Scheduler.Action]) {
            for action in actions {
                switch action {
                case .start(let task): started.append(task)
                case .skip(let task, _): result[plan.tasks[task].id] = "skipped"
                case .ready, .finish: break
                }
            }
        }
        apply(scheduler.begin())
        while !started.isEmpty {
            let task = started.removeFirst()
            let fails = failing.contains(plan.tasks[task].id)
            result[plan.tasks[task].id] = fails ? "failure" : "success"
            apply(scheduler.taskFinished(task, fails ? .failed : .succeeded))
        }
        return result
    }

    /// A workflow of tasks t0, t1, ... with these needs and `when`s.
    static func workflow(needs: [[Int]], whens: [When], failFast: Bool) -> String {
        var text = "version: 1\nfail_fast: \(failFast)\ntasks:\n"
        for (task, list) in needs.enumerated() {
            let needsText = list.isEmpty ? "" : "needs: [\(list.map { "t\($0)" }.joined(separator: ", "))], "
            text += "  t\(task): {\(needsText)when: \(whens[task].rawValue), shell: \"true\"}\n"
        }
        return text
    }

    /// The tasks flowrun and GitHub run differently, for each outcome of `plan`'s tasks.
    static func differences(_ text: String, failFast: Bool, only outcomes: [Set<String>]? = nil) throws -> [String] {
        let plan = try ExportFixture.plan(text)
        let jobs = GitHubConditionEvaluator(exported: GitHubExport.export(plan, options: ExportFixture.options()).text)
        let ids = plan.tasks.map(\.id)
        let patterns = outcomes ?? (0..<(1 << ids.count)).map { mask in Set(ids.indices.filter { mask & (1 << $0) != 0 }.map { ids[$0] }) }
        var found: [String] = []
        for failing in patterns {
            let expected = flowrunResults(plan, failing: failing, failFast: failFast)
            let github = try jobs.results(failing: failing)
            for id in ids where expected[id] != github[id] {
                found.append("\(text)failing \(failing.sorted()): \(id) is \(expected[id] ?? "?") in flowrun, \(github[id] ?? "?") in GitHub")
            }
        }
        return found
    }

    /// The red team's case: `y` is skipped because `x` succeeded, so nothing `c` needs failed;
    /// GitHub's `failure()` is true all the same (an ancestor, `a`, failed).
    @Test func aWhenFailureTaskAfterANeedSkippedForItsOwnWhenDoesNotRun() throws {
        let text = """
            version: 1
            tasks:
              a: {shell: "false"}
              x: {needs: a, when: always, shell: "true"}
              y: {needs: x, when: failure, shell: "true"}
              c: {needs: y, when: failure, shell: "true"}

            """
        #expect(try Self.differences(text, failFast: true, only: [["a"]]) == [])
    }

    /// With `fail_fast: false`, a task after a `when: always` task that succeeded runs, though
    /// something before it failed; GitHub's implicit `success()` looks at every ancestor.
    @Test func underKeepGoingATaskAfterACleanupThatSucceededRuns() throws {
        let text = """
            version: 1
            fail_fast: false
            tasks:
              a: {shell: "false"}
              x: {needs: a, when: always, shell: "true"}
              d: {needs: x, shell: "true"}

            """
        #expect(try Self.differences(text, failFast: false, only: [["a"]]) == [])
    }

    /// Every graph of up to four tasks (each task's needs any of the tasks before it), every
    /// `when` (a `when: failure` task without needs too: flowrun never runs it), every set of
    /// failing tasks. With fail_fast flowrun also skips a task after a
    /// failure elsewhere, which GitHub cannot (the export says so): those runs are compared when
    /// the only task that fails is t0 and every other task comes after it.
    @Test func everySmallGraphRunsTheSameTasks() throws {
        var found: [String] = []
        for count in 1...4 {
            let graphs = (0..<count).reduce(1) { $0 << $1 }
            for graph in 0..<graphs {
                var needs: [[Int]] = []
                var bit = 0
                for task in 0..<count {
                    needs.append((0..<task).filter { graph & (1 << (bit + $0)) != 0 })
                    bit += task
                }
                var afterT0 = [Bool](repeating: false, count: count)
                for task in 1..<max(count, 1) { afterT0[task] = needs[task].contains { $0 == 0 || afterT0[$0] } }
                let allAfterT0 = (1..<max(count, 1)).allSatisfy { afterT0[$0] }
                for whenCode in 0..<Int(pow3(count)) {
                    var code = whenCode
                    let whens: [When] = (0..<count).map { _ in
                        defer { code /= 3 }
                        return [When.success, .failure, .always][code % 3]
                    }
                    found += try Self.differences(Self.workflow(needs: needs, whens: whens, failFast: false), failFast: false)
                    if allAfterT0 {
                        found += try Self.differences(
                            Self.workflow(needs: needs, whens: whens, failFast: true), failFast: true, only: [[], ["t0"]])
                    }
                }
            }
        }
        let differences = found.count
        #expect(differences == 0, "the first: \(found.prefix(5).joined(separator: "\n"))")
    }

    private func pow3(_ count: Int) -> Int { (0..<count).reduce(1) { result, _ in result * 3 } }
}
