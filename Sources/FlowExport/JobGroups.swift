import FlowPlanning

/// Tasks grouped into at most `limit` jobs, when a workflow has more tasks than an engine takes
/// jobs (a GitHub run holds at most 256).
///
/// By waves: a wave's tasks need only earlier waves, so jobs made of whole consecutive waves, or
/// of parts of one wave, need only earlier jobs, and the jobs' graph has no cycle. With fewer
/// waves than `limit`, each wave is one job or more, the larger waves split into more parts (by
/// the largest remainder); with more, consecutive waves share a job.
package enum JobGroups {
    /// Plan indices of each job's tasks, in plan order; one job per task when they fit.
    package static func group(_ plan: Plan, limit: Int) -> [[Int]] {
        let count = plan.tasks.count
        guard count > limit else { return (0..<count).map { [$0] } }
        let waves = plan.waveCount
        var byWave = [[Int]](repeating: [], count: waves)
        for (index, task) in plan.tasks.enumerated() { byWave[task.wave - 1].append(index) }
        guard waves <= limit else {
            // Bands of consecutive waves, as even in waves as the limit allows.
            return (0..<limit).compactMap { band in
                let range = (band * waves / limit)..<((band + 1) * waves / limit)
                let tasks = range.flatMap { byWave[$0] }
                return tasks.isEmpty ? nil : tasks
            }
        }
        // Each wave gets one job, and the jobs left over go to the waves by size.
        let spare = limit - waves
        let shares = byWave.map { Double($0.count - 1) / Double(count - waves) * Double(spare) }
        var parts = shares.map { 1 + Int($0) }
        var left = limit - parts.reduce(0, +)
        for wave in shares.indices.sorted(by: { shares[$0] - shares[$0].rounded(.down) > shares[$1] - shares[$1].rounded(.down) }) where left > 0 {
            parts[wave] += 1
            left -= 1
        }
        var jobs: [[Int]] = []
        for (wave, tasks) in byWave.enumerated() {
            let n = min(parts[wave], tasks.count)
            for part in 0..<n { jobs.append(Array(tasks[(part * tasks.count / n)..<((part + 1) * tasks.count / n)])) }
        }
        return jobs
    }
}
