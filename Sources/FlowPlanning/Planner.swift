import FlowModel

/// The result of planning: the plan when the workflow is valid, and every problem found.
public struct PlanResult: Sendable {
    public var plan: Plan?
    public var diagnostics: [Diagnostic]
}

/// Checks the graph of a decoded workflow and plans a run of it: selection, order, waves.
public enum Planner {
    /// Checks the whole file (unknown needs, cycles, variables, URLs), then plans the selection.
    ///
    /// - Throws: `PlanningError.unknownTarget` when the file is valid but a target names no task.
    public static func plan(_ workflow: Workflow, options: PlanningOptions, alsoDeclared: Set<TaskID> = []) throws -> PlanResult {
        let (graph, graphDiagnostics) = TaskGraph.build(workflow, alsoDeclared: alsoDeclared)
        // Kahn's algorithm places every task exactly when the graph has no cycle; only then can
        // the search for cycles, a quarter of planning, be skipped.
        let everyTask = TopologicalOrder.sorted(graph)
        let isAcyclic = everyTask.count == graph.count
        var diagnostics = graphDiagnostics + (isAcyclic ? [] : CycleFinder.diagnostics(for: graph, in: workflow))
        var resolver = TaskResolver(workflow: workflow, options: options)
        let resolved = workflow.tasks.indices.map { resolver.resolve(taskAt: $0) }
        diagnostics += resolver.diagnostics
        guard diagnostics.isEmpty else { return PlanResult(plan: nil, diagnostics: diagnostics) }

        let selected = try Selection.tasks(options.targets, in: graph)
        // A selection holds everything its tasks need, so nothing outside it ever delays one of
        // its tasks: the order of the whole graph, filtered, is the order of the selection.
        let order = options.targets.isEmpty ? everyTask : everyTask.filter { selected[$0] }
        var position = [Int](repeating: -1, count: graph.count)
        for (index, task) in order.enumerated() { position[task] = index }
        var tasks: [PlannedTask] = []
        tasks.reserveCapacity(order.count)
        var waveCount = 0
        for task in order {
            let needs = graph.needs[task].map { position[$0] }
            let wave = 1 + (needs.lazy.map { tasks[$0].wave }.max() ?? 0)
            waveCount = max(waveCount, wave)
            let (workdir, environment, action) = resolved[task]!
            tasks.append(PlannedTask(spec: workflow.tasks[task], fileIndex: task, needs: needs, wave: wave, workdir: workdir, workflowDirectory: workflow.directory,
                                     environment: environment, action: action))
        }
        let concurrency = options.concurrency ?? workflow.concurrency ?? max(1, options.processorCount)
        return PlanResult(plan: Plan(workflow: workflow, concurrency: concurrency, tasks: tasks, waveCount: waveCount), diagnostics: [])
    }
}
