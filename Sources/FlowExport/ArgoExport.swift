import FlowModel
import FlowPlanning

/// A workflow as an Argo `Workflow` (or `WorkflowTemplate`): one DAG, each task a DAG task
/// running `flowrun run --only` in a container on a shared workspace volume.
package enum ArgoExport {
    /// Names the export itself uses, which no task takes.
    static let entrypoint = "flowrun-dag"
    static let sharedTemplate = "flowrun-task"
    static let setup = "flowrun-setup"
    static let volume = "workspace"
    static let workspace = "/workspace"

    package static func export(_ plan: Plan, options: ExportOptions) -> Export {
        var report = MappingReport()
        let names = ExportNames.names(for: plan.tasks.map(\.id), engine: .argo, reserved: [entrypoint, sharedTemplate, setup])
        var base = ExportNames.names(for: [plan.workflow.name.lowercased()], engine: .argo)[0].lowercased()
        // A Kubernetes object's name ends with a letter or a digit (a WorkflowTemplate's is used
        // as it is); a valid name starts with a letter, so one is left.
        while base.hasSuffix("-") { base.removeLast() }
        let queueConfigMap = base + "-flowrun-queues"
        let usedQueues = plan.workflow.queues.filter { queue in plan.tasks.contains { $0.spec.queue == queue.name } }
        var dagTasks: [YAMLNode] = [.mapping([YAMLEntry("name", .string(setup)), YAMLEntry("template", .string(setup))])]
        var templates: [YAMLNode] = []
        var needsShared = false
        for (index, task) in plan.tasks.enumerated() {
            let spec = task.spec
            let name = names[index]
            var entries = [YAMLEntry("name", .string(name), comment: name == spec.id ? nil : "task '\(spec.id)'")]
            let own = hasOwnTemplate(spec, usesQueue: !usedQueues.isEmpty)
            entries.append(YAMLEntry("template", .string(own ? name : sharedTemplate)))
            if !own {
                needsShared = true
                entries.append(
                    YAMLEntry(
                        "arguments",
                        .mapping([YAMLEntry("parameters", .sequence([.mapping([YAMLEntry("name", .string("task")), YAMLEntry("value", .string(spec.id))])]))])))
            }
            entries.append(YAMLEntry("depends", .string(depends(task, plan, names, &report))))
            if spec.when == .failure, task.needs.isEmpty {
                // No need can fail, so flowrun never runs it: Argo skips it, and omits its dependents.
                entries.append(YAMLEntry("when", .string("false")))
                report.add("when: failure without needs -> when: \"false\" (it never runs)", spec.id)
            }
            dagTasks.append(.mapping(entries))
            if own { templates.append(taskTemplate(task, name: name, plan, options, configMap: queueConfigMap, &report)) }
        }
        if !plan.tasks.isEmpty { report.count("needs -> depends", edges: plan.tasks.reduce(0) { $0 + $1.needs.count }) }
        var dag: [YAMLEntry] = []
        if !plan.workflow.failFast || runsAfterAFailure(plan) { dag.append(YAMLEntry("failFast", .literal("false"))) }
        dag.append(YAMLEntry("tasks", .sequence(dagTasks)))
        var allTemplates: [YAMLNode] = [
            .mapping([YAMLEntry("name", .string(entrypoint)), YAMLEntry("dag", .mapping(dag))]),
            setupTemplate(options),
        ]
        if needsShared {
            allTemplates.append(
                .mapping([
                    YAMLEntry("name", .string(sharedTemplate)),
                    YAMLEntry("inputs", .mapping([YAMLEntry("parameters", .sequence([.mapping([YAMLEntry("name", .string("task"))])]))])),
                    YAMLEntry("container", container(options, task: "{{inputs.parameters.task}}", noRetry: false)),
                ]))
        }
        allTemplates += templates
        var spec: [YAMLEntry] = [YAMLEntry("entrypoint", .string(entrypoint))]
        if let concurrency = plan.workflow.concurrency {
            spec.append(YAMLEntry("parallelism", .literal("\(concurrency)")))
            report.add("concurrency -> spec.parallelism", "\(concurrency)")
        } else {
            report.notCarried.append("concurrency: not set, so flowrun runs as many tasks as one machine has CPUs; the export sets no parallelism")
        }
        spec.append(
            YAMLEntry(
                "volumeClaimTemplates",
                .sequence([
                    .mapping([
                        YAMLEntry("metadata", .mapping([YAMLEntry("name", .string(volume))])),
                        YAMLEntry(
                            "spec",
                            .mapping([
                                YAMLEntry("accessModes", .flowSequence([.string("ReadWriteOnce")])),
                                YAMLEntry("resources", .mapping([YAMLEntry("requests", .mapping([YAMLEntry("storage", .string(options.volumeSize))]))])),
                            ]), comment: "ReadWriteOnce keeps the pods on one node; give a ReadWriteMany storage class to spread them"),
                    ])
                ])))
        spec.append(YAMLEntry("templates", .sequence(allTemplates)))
        let kind = options.workflowTemplate ? "WorkflowTemplate" : "Workflow"
        let metadata = options.workflowTemplate ? YAMLEntry("name", .string(base)) : YAMLEntry("generateName", .string(base + "-"))
        let workflow: YAMLNode = .mapping([
            YAMLEntry("apiVersion", .string("argoproj.io/v1alpha1")),
            YAMLEntry("kind", .string(kind)),
            YAMLEntry("metadata", .mapping([metadata])),
            YAMLEntry("spec", .mapping(spec)),
        ])
        notes(plan, &report)
        let header =
            [
                "Exported by flowrun from \(options.workflowPath) (flowrun export --to argo).",
                "Each DAG task runs one task of that file with `flowrun run --only` in \(options.image);",
                "\(setup) first copies the project from the image into the shared workspace volume.",
            ]
            + (report.notCarried.isEmpty ? [] : ["", "Not carried over:"] + report.notCarried.map { "- " + $0 })
        var text = YAMLWriter.document(workflow, header: header)
        if !usedQueues.isEmpty {
            let configMap: YAMLNode = .mapping([
                YAMLEntry("apiVersion", .string("v1")),
                YAMLEntry("kind", .string("ConfigMap")),
                YAMLEntry("metadata", .mapping([YAMLEntry("name", .string(queueConfigMap))])),
                YAMLEntry("data", .mapping(usedQueues.map { YAMLEntry($0.name, .string("\($0.concurrency)")) })),
            ])
            text = YAMLWriter.document(configMap, header: ["The semaphores of the workflow's queues: apply this before the \(kind)."]) + "---\n" + text
            for queue in usedQueues { report.add("queue -> semaphore (ConfigMap \(queueConfigMap))", queue.name) }
        }
        return Export(text: text, mapped: ["tasks -> DAG tasks: \(plan.tasks.count)"] + report.mapped, notCarried: report.notCarried)
    }

    /// Whether a task must start after a failure: a `when: failure|always` task with needs.
    ///
    /// Argo's DAG `failFast` (default true) marks the DAG failed as soon as every node it
    /// created has ended and a target's branch has failed, even though other targets were
    /// never created (held by `parallelism` or by the controller's per-pass deadline); nothing
    /// starts after that (`assessDAGPhase` in Argo's workflow/controller/dag.go). Such a task
    /// would then never run, so the DAG gets `failFast: false`: it waits for every branch.
    /// Ready tasks are created in the pass that sees the failure either way, so without such
    /// a task the default changes nothing flowrun promises.
    static func runsAfterAFailure(_ plan: Plan) -> Bool {
        plan.tasks.contains { $0.spec.when != .success && !$0.needs.isEmpty }
    }

    /// A task gets its own template when it carries something of its own: retries, a timeout or a queue.
    private static func hasOwnTemplate(_ spec: TaskSpec, usesQueue: Bool) -> Bool {
        spec.retries > 0 || spec.timeout != nil || (usesQueue && spec.queue != nil)
    }

    /// The `depends` expression of a task's `when` over its needs; a task with no needs waits for the setup.
    private static func depends(_ task: PlannedTask, _ plan: Plan, _ names: [String], _ report: inout MappingReport) -> String {
        guard !task.needs.isEmpty else { return "\(setup).Succeeded" }
        let needs = task.needs.map { (name: names[$0], tolerated: plan.tasks[$0].spec.continueOnError) }
        switch task.spec.when {
        case .success:
            // A continue_on_error need counts as succeeded even when its pod failed (continueOn
            // is not available with depends).
            return needs.map { $0.tolerated ? "(\($0.name).Succeeded || \($0.name).Failed)" : "\($0.name).Succeeded" }.joined(separator: " && ")
        case .failure:
            report.add("when: failure -> depends: a need Failed or Errored, or skipped after a failure", task.id)
            return failedBefore(task, plan).map { "\(names[$0]).Failed || \(names[$0]).Errored" }.joined(separator: " || ")
        case .always:
            report.add("when: always -> depends: every need Succeeded, Failed, Errored, Skipped or Omitted", task.id)
            return needs.map { "(\($0.name).Succeeded || \($0.name).Failed || \($0.name).Errored || \($0.name).Skipped || \($0.name).Omitted)" }
                .joined(separator: " && ")
        }
    }

    /// The tasks whose failure makes a `when: failure` task run: its needs, and, since flowrun
    /// also runs it when a need was skipped because something before it failed, the needs of
    /// every `when: success` task among them, and so on up the graph. Argo omits a task whose
    /// need failed (`.Omitted`, as it omits one whose `when` was not met), so the expression
    /// names those earlier tasks themselves. A `when: failure|always` need is not looked through:
    /// flowrun passes no failure through it.
    static func failedBefore(_ task: PlannedTask, _ plan: Plan) -> [Int] {
        var seen = Set(task.needs)
        var order = task.needs
        var next = 0
        while next < order.count {
            let need = plan.tasks[order[next]]
            next += 1
            guard need.spec.when == .success else { continue }
            for earlier in need.needs where seen.insert(earlier).inserted { order.append(earlier) }
        }
        return order
    }

    private static func taskTemplate(
        _ task: PlannedTask, name: String, _ plan: Plan, _ options: ExportOptions, configMap: String, _ report: inout MappingReport
    ) -> YAMLNode {
        let spec = task.spec
        var entries = [YAMLEntry("name", .string(name), comment: "task '\(spec.id)'")]
        if spec.retries > 0 {
            entries.append(
                YAMLEntry(
                    "retryStrategy",
                    .mapping([
                        YAMLEntry("limit", .string("\(spec.retries)")),
                        YAMLEntry("retryPolicy", .string("Always")),
                        YAMLEntry(
                            "backoff",
                            .mapping([
                                YAMLEntry("duration", .string(spec.retryDelay.description)),
                                YAMLEntry("factor", .string("2")),
                                YAMLEntry("cap", .string("60s")),
                            ])),
                    ])))
            report.add("retries, retry_delay -> retryStrategy with exponential backoff", spec.id)
        }
        if let timeout = spec.timeout {
            entries.append(YAMLEntry("activeDeadlineSeconds", .literal("\(max(1, (timeout.milliseconds + 999) / 1000))")))
            report.add("timeout -> activeDeadlineSeconds", spec.id)
        }
        if let queue = spec.queue {
            entries.append(
                YAMLEntry(
                    "synchronization",
                    .mapping([
                        YAMLEntry(
                            "semaphores",
                            .sequence([
                                .mapping([
                                    YAMLEntry("configMapKeyRef", .mapping([YAMLEntry("name", .string(configMap)), YAMLEntry("key", .string(queue))]))
                                ])
                            ]))
                    ])))
        }
        entries.append(YAMLEntry("container", container(options, task: spec.id, noRetry: spec.retries > 0)))
        return .mapping(entries)
    }

    /// The container that runs `flowrun run --only TASK` in the workspace.
    private static func container(_ options: ExportOptions, task: String, noRetry: Bool) -> YAMLNode {
        .mapping([
            YAMLEntry("image", .string(options.image)),
            YAMLEntry("command", .flowSequence([.string("flowrun")])),
            YAMLEntry("args", .sequence(options.runArguments([task], noRetry: noRetry).map { .string($0) })),
            YAMLEntry("workingDir", .string(workspace)),
            YAMLEntry("volumeMounts", .sequence([.mapping([YAMLEntry("name", .string(volume)), YAMLEntry("mountPath", .string(workspace))])])),
        ])
    }

    /// Copies the project (the workflow file and what its tasks read) from the image into the workspace.
    private static func setupTemplate(_ options: ExportOptions) -> YAMLNode {
        let source = options.source.map { "cd " + ShellWords.quoted($0) + " && " } ?? ""
        let script =
            source
            + "[ \"$PWD\" != / ] || { echo 'flowrun-setup: the image has no working directory: export with --source DIR' >&2; exit 1; }; cp -a . \(workspace)/"
        return .mapping([
            YAMLEntry("name", .string(setup), comment: "the project, copied from the image into the shared workspace"),
            YAMLEntry(
                "container",
                .mapping([
                    YAMLEntry("image", .string(options.image)),
                    YAMLEntry("command", .flowSequence([.string("sh"), .string("-c")])),
                    YAMLEntry("args", .sequence([.string(script)])),
                    YAMLEntry("volumeMounts", .sequence([.mapping([YAMLEntry("name", .string(volume)), YAMLEntry("mountPath", .string(workspace))])])),
                ])),
        ])
    }

    private static func notes(_ plan: Plan, _ report: inout MappingReport) {
        let prioritised = plan.tasks.filter { $0.spec.priority != .normal }.map(\.id)
        if !prioritised.isEmpty {
            report.notCarried.append(
                "priority (\(MappingReport.list(prioritised))): an Argo DAG starts its ready tasks without a priority (a pod's priorityClassName is a cluster's PriorityClass)"
            )
        }
        let retried = plan.tasks.filter { $0.spec.retries > 0 }.map(\.id)
        if !retried.isEmpty { report.notCarried.append("retry_delay's jitter (\(MappingReport.list(retried))): Argo's backoff has none") }
        let tolerated = plan.tasks.filter(\.spec.continueOnError).map(\.id)
        if !tolerated.isEmpty {
            report.add(
                "continue_on_error -> flowrun exits 0; dependents also accept .Failed (continueOn is not allowed with depends)",
                tolerated.joined(separator: ", "))
        }
        let handlers = plan.tasks.filter { $0.spec.when != .success && !$0.needs.isEmpty }.map(\.id)
        if plan.workflow.failFast, !handlers.isEmpty {
            for task in handlers { report.add("when: failure|always -> the DAG's failFast: false, so that Argo still starts them after a failure", task) }
            // The price of it: after a failure Argo still starts what does not need the failed task.
            report.notCarried.append(
                "fail_fast (\(plan.workflow.name)): the DAG's failFast is off for \(MappingReport.list(handlers)), so after a failure "
                    + "Argo still starts the tasks that do not need the failed one, which flowrun would not start")
        } else if plan.workflow.failFast, plan.tasks.count > 1 {
            report.add("fail_fast -> the DAG's failFast (Argo's default)", plan.workflow.name)
        }
    }
}
