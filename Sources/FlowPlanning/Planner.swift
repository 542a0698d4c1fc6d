import FlowModel

/// The result of planning: the plan when the workflow is valid, and every problem found.
package struct PlanResult: Sendable {
    package var plan: Plan?
    package var diagnostics: [Diagnostic]
}

/// Checks the graph of a decoded workflow and plans a run of it: selection, order, waves.
package enum Planner {
    /// Checks the whole file (unknown needs, cycles, variables, URLs), then plans the selection.
    ///
    /// - Throws: `PlanningError.unknownTarget` when the file is valid but a target names no task.
    package static func plan(_ workflow: Workflow, options: PlanningOptions, alsoDeclared: Set<TaskID> = []) throws -> PlanResult {
        let (graph, graphDiagnostics) = TaskGraph.build(workflow, alsoDeclared: alsoDeclared)
        // Kahn's algorithm places every task exactly when the graph has no cycle; only then can
        // the search for cycles, a quarter of planning, be skipped.
        let everyTask = TopologicalOrder.sorted(graph)
        let isAcyclic = everyTask.count == graph.count
        var diagnostics = graphDiagnostics + (isAcyclic ? [] : CycleFinder.diagnostics(for: graph, in: workflow))
        // Each task resolves on its own: a large file's on every core, a chunk at a time.
        let resolver = TaskResolver(workflow: workflow, options: options)
        let (resolved, resolverReports) = ChunkedWork.gather(workflow.tasks.count) { range, add in
            var chunkResolver = resolver
            for task in range { add(chunkResolver.resolve(taskAt: task)) }
            return (diagnostics: chunkResolver.diagnostics, names: chunkResolver.interpolatedNames)
        }
        diagnostics += resolverReports.map(\.diagnostics).joined()
        if diagnostics.isEmpty {
            diagnostics = WriteConflicts.diagnostics(in: workflow, graph: graph, resolved: resolved, order: everyTask)
        }
        guard diagnostics.isEmpty else { return PlanResult(plan: nil, diagnostics: diagnostics) }

        // A matrix task's name stands for all its combinations.
        let targets = options.targets.flatMap { workflow.matrixCombinations[$0] ?? [$0] }
        let selected = try Selection.tasks(
            targets, in: graph, exactly: options.onlyTargets, alsoNamed: workflow.matrixCombinations.keys.sorted())
        // A selection holds everything its tasks need, so nothing outside it ever delays one of
        // its tasks: the order of the whole graph, filtered, is the order of the selection.
        let order = options.targets.isEmpty ? everyTask : everyTask.filter { selected[$0] }
        var position = [Int](repeating: -1, count: graph.count)
        for (index, task) in order.enumerated() { position[task] = index }
        // A task's wave depends on earlier ones, so waves are numbered in order first; then each
        // planned task is built on its own, on every core for a large plan.
        var waves: [Int] = []
        waves.reserveCapacity(order.count)
        // Under `--only` a need outside the selection has no position: it is taken as done; a
        // group among them stands for its needs, and those selected stay needs (OnlySelection).
        let throughGroups =
            options.onlyTargets ? order.map { OnlySelection.selectedNeeds(of: $0, graph: graph, specs: workflow.tasks, position: position) } : nil
        for (index, task) in order.enumerated() {
            if let throughGroups {
                waves.append(1 + (throughGroups[index].lazy.map { waves[position[$0]] }.max() ?? 0))
            } else {
                waves.append(1 + (graph.needs[task].lazy.filter { position[$0] >= 0 }.map { waves[position[$0]] }.max() ?? 0))
            }
        }
        let (planned, _) = ChunkedWork.gather(order.count) { [position, waves, throughGroups] range, add in
            for index in range {
                let task = order[index]
                let (workdir, environment, action, shown, inputs, outputs) = resolved[task]!
                let needs = throughGroups.map { $0[index].map { position[$0] } } ?? graph.needs[task].compactMap { position[$0] >= 0 ? position[$0] : nil }
                var planned = PlannedTask(
                    spec: workflow.tasks[task], fileIndex: task, needs: needs,
                    wave: waves[index], workdir: workdir, workflowDirectory: workflow.directory,
                    environment: environment, action: action, shown: shown)
                planned.inputs = inputs
                planned.outputs = outputs
                add(planned)
            }
        }
        var tasks = try TaskArguments.give(options.taskArguments, to: targets, in: planned)
        let takenAsDone = options.onlyTargets ? OnlySelection.takeNeedsAsDone(in: &tasks, graph: graph, specs: workflow.tasks, position: position) : []
        let waveCount = waves.max() ?? 0
        let concurrency = options.concurrency ?? workflow.concurrency ?? max(1, options.processorCount)
        var plan = Plan(
            workflow: workflow, concurrency: concurrency, tasks: tasks, waveCount: waveCount,
            secretOverrides: resolver.secretOverrides)
        // A dotenv value that took `${HOST}` from the process environment depends on it too.
        plan.interpolatedNames = resolverReports.reduce(into: Set(workflow.dotenvEnvironmentNames)) { $0.formUnion($1.names) }.sorted()
        plan.takenAsDone = takenAsDone.map { need in
            let (workdir, environment, action, shown, inputs, outputs) = resolved[need]!
            var planned = PlannedTask(
                spec: workflow.tasks[need], fileIndex: need, needs: [], wave: 0, workdir: workdir,
                workflowDirectory: workflow.directory, environment: environment, action: action, shown: shown)
            planned.inputs = inputs
            planned.outputs = outputs
            return planned
        }
        return PlanResult(plan: plan, diagnostics: [])
    }
}
