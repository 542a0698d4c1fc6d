import FlowModel
import FlowPlanning

/// The `if:` of a one-task job, deciding from its needs' `needs.<id>.result` what flowrun's
/// `when` decides from their outcomes. GitHub's own `success()` and `failure()` look at every
/// ancestor, flowrun's `when` at the needs: a `when: always` need that succeeded after a
/// failure passes on success in flowrun, and a need skipped because its own `when: failure` was
/// not met passes on no failure, however GitHub's ancestors ended.
enum GitHubConditions {
    /// The `if:` of each task's job (nil: GitHub's implicit `success()` decides as flowrun does),
    /// and the jobs it reads `needs.<id>.result` of beyond the jobs of the task's own needs.
    struct Condition {
        var expression: String?
        var extraNeeds: [Int]
    }

    /// - Parameters: `jobOfTask`: each task's job; `names`: each job's id.
    static func condition(
        of task: Int, _ plan: Plan, jobOfTask: [Int], names: [String], irregular: [Bool]
    ) -> Condition {
        let planned = plan.tasks[task]
        let own = jobOfTask[task]
        // No need can fail: flowrun skips it ("no need failed"), and so the tasks after it.
        // Never true, and not the constant `false` (actionlint asks to remove that `if:`).
        if planned.needs.isEmpty, planned.spec.when == .failure { return Condition(expression: "${{ !always() }}", extraNeeds: []) }
        let needJobs = unique(planned.needs.map { jobOfTask[$0] }.filter { $0 != own })
        guard !needJobs.isEmpty else { return Condition(expression: nil, extraNeeds: []) }
        switch planned.spec.when {
        case .success:
            // With only `when: success` tasks above it, a need succeeded exactly when every
            // ancestor did: GitHub's implicit success() is flowrun's rule.
            guard irregular[task] else { return Condition(expression: nil, extraNeeds: []) }
            // fail_fast: a failure anywhere before stops it; `failure()` is any ancestor's.
            let terms = ["!cancelled()"] + (plan.workflow.failFast ? ["!failure()"] : []) + needJobs.map { "needs.\(names[$0]).result == 'success'" }
            return Condition(expression: "${{ " + terms.joined(separator: " && ") + " }}", extraNeeds: [])
        case .failure:
            // A need failed, or was skipped because something before it failed: GitHub shows
            // that need only as `skipped`, so the expression reads the task that failed.
            let jobs = unique(ArgoExport.failedBefore(planned, plan).map { jobOfTask[$0] }.filter { $0 != own })
            let failed = jobs.map { "needs.\(names[$0]).result == 'failure'" }
            let any = failed.count == 1 ? failed[0] : "(" + failed.joined(separator: " || ") + ")"
            return Condition(expression: "${{ !cancelled() && \(any) }}", extraNeeds: jobs.filter { !needJobs.contains($0) })
        case .always:
            return Condition(expression: "${{ always() }}", extraNeeds: [])
        }
    }

    /// Tasks with a `when: failure|always` task among their ancestors: there GitHub's
    /// `success()` and flowrun's `when: success` can differ.
    static func irregularAncestry(_ plan: Plan) -> [Bool] {
        var irregular = [Bool](repeating: false, count: plan.tasks.count)
        // By waves: a task's needs are in earlier waves.
        for task in plan.tasks.indices.sorted(by: { plan.tasks[$0].wave < plan.tasks[$1].wave }) {
            irregular[task] = plan.tasks[task].needs.contains { plan.tasks[$0].spec.when != .success || irregular[$0] }
        }
        return irregular
    }

    private static func unique(_ jobs: [Int]) -> [Int] {
        var seen = Set<Int>()
        return jobs.filter { seen.insert($0).inserted }
    }
}
