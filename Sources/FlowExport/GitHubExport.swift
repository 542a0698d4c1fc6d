import FlowModel
import FlowPlanning
import Foundation

/// A workflow as a GitHub Actions workflow: one job per task (or per group of tasks beyond 256),
/// each running `flowrun run --only`, the files a task writes handed to the jobs that need it.
package enum GitHubExport {
    /// A run holds at most 256 jobs.
    package static let jobLimit = 256
    static let checkout = "actions/checkout@v7"
    static let uploadArtifact = "actions/upload-artifact@v7"
    static let downloadArtifact = "actions/download-artifact@v8"

    package static func export(_ plan: Plan, options: ExportOptions) -> Export {
        var report = MappingReport()
        let groups = JobGroups.group(plan, limit: jobLimit)
        let grouped = groups.count < plan.tasks.count
        var jobOfTask = [Int](repeating: 0, count: plan.tasks.count)
        for (job, tasks) in groups.enumerated() { for task in tasks { jobOfTask[task] = job } }
        let names = ExportNames.names(for: groups.map { jobName(of: $0, plan) }, engine: .github)
        // Jobs whose files other jobs need: those upload them.
        var needsOfJob = [[Int]](repeating: [], count: groups.count)
        var isNeeded = [Bool](repeating: false, count: groups.count)
        for (job, tasks) in groups.enumerated() {
            var seen = Set<Int>()
            for task in tasks {
                for need in plan.tasks[task].needs where jobOfTask[need] != job && seen.insert(jobOfTask[need]).inserted {
                    needsOfJob[job].append(jobOfTask[need])
                    isNeeded[jobOfTask[need]] = true
                }
            }
        }
        let files = groups.map { tasks in sharedFiles(of: tasks, plan, options, &report) }
        let irregular = GitHubConditions.irregularAncestry(plan)
        var jobs: [YAMLEntry] = []
        for (job, tasks) in groups.enumerated() {
            let condition =
                tasks.count == 1
                ? GitHubConditions.condition(of: tasks[0], plan, jobOfTask: jobOfTask, names: names, irregular: irregular)
                : GitHubConditions.Condition(expression: nil, extraNeeds: [])
            // The jobs read only for the condition hand on no files.
            let needs = (needsOfJob[job] + condition.extraNeeds).sorted().map { need in
                (names[need], !files[need].isEmpty && needsOfJob[job].contains(need))
            }
            let entries = jobEntries(
                tasks, plan, options, name: names[job], needs: needs, condition: condition.expression,
                uploads: isNeeded[job] ? files[job] : [], report: &report)
            let ids = tasks.map { plan.tasks[$0].id }
            let comment = grouped ? "tasks \(ids.joined(separator: ", "))" : names[job] == ids[0] ? nil : "task '\(ids[0])'"
            jobs.append(YAMLEntry(names[job], .mapping(entries), comment: comment))
        }
        if grouped {
            report.notCarried.append(
                "\(plan.tasks.count) tasks: a GitHub run holds at most \(jobLimit) jobs, so the tasks are grouped into \(groups.count) jobs by waves "
                    + "(each job runs its tasks with one flowrun run --only, in their order); a failure fails its whole job")
            // A need in an earlier job is taken as done: its result no longer reaches the task's `when`.
            let judged = plan.tasks.indices.filter { index in
                plan.tasks[index].spec.when != .success && plan.tasks[index].needs.contains { jobOfTask[$0] != jobOfTask[index] }
            }.map { plan.tasks[$0].id }
            if !judged.isEmpty {
                report.notCarried.append(
                    "when: failure|always of grouped tasks (\(list(judged))): their needs in earlier jobs are taken as done, so they run with their job")
            }
        }
        notes(plan, &report)
        let jobsLine = grouped ? "tasks -> \(groups.count) jobs, grouped by waves" : "tasks -> jobs: \(groups.count), one per task"
        var top: [YAMLEntry] = [
            YAMLEntry("name", .string(staticText(plan.workflow.name))),
            YAMLEntry("on", .flowSequence([.string("push"), .string("workflow_dispatch")])),
            YAMLEntry("permissions", .mapping([YAMLEntry("contents", .string("read"))])),
        ]
        if !plan.workflow.env.isEmpty {
            top.append(YAMLEntry("env", .mapping(plan.workflow.env.map { YAMLEntry($0.name, .string(literal($0.value))) })))
        }
        top.append(YAMLEntry("jobs", .mapping(jobs)))
        let header =
            [
                "Exported by flowrun from \(options.workflowPath) (flowrun export --to github).",
                "Each job runs one task of that file with `flowrun run --only`, its needs taken as done;",
                "the files a task writes reach the jobs that need it as artifacts.",
            ]
            + (report.notCarried.isEmpty ? [] : ["", "Not carried over:"] + report.notCarried.map { "- " + $0 })
        return Export(text: YAMLWriter.document(.mapping(top), header: header), mapped: [jobsLine] + report.mapped, notCarried: report.notCarried)
    }

    /// The job's entries: name, needs, if, runs-on, continue-on-error, env, steps.
    private static func jobEntries(
        _ tasks: [Int], _ plan: Plan, _ options: ExportOptions, name: String, needs: [(name: String, hasFiles: Bool)],
        condition: String?, uploads: [String], report: inout MappingReport
    ) -> [YAMLEntry] {
        let specs = tasks.map { plan.tasks[$0].spec }
        let single = specs.count == 1 ? specs[0] : nil
        var entries: [YAMLEntry] = [YAMLEntry("name", .string(literal(single?.id ?? "\(specs[0].id) .. \(specs[specs.count - 1].id) (\(specs.count) tasks)")))]
        if !needs.isEmpty {
            entries.append(YAMLEntry("needs", .flowSequence(needs.map { .string($0.name) })))
            report.count("needs -> needs", edges: needs.count)
        }
        if let single, let condition {
            entries.append(YAMLEntry("if", .string(condition)))
            switch single.when {
            case .success:
                report.add("when: success after a when: failure|always task -> if: !cancelled() and every need's result is success", single.id)
            case .failure where plan.tasks[tasks[0]].needs.isEmpty:
                report.add("when: failure without needs -> if: !always() (flowrun skips it: no need failed)", single.id)
            case .failure:
                report.add("when: failure -> if: !cancelled() and a need's result is failure (or that of a task before a skipped need)", single.id)
            case .always:
                report.add("when: always -> if: always()", single.id)
            }
        }
        let labels = options.runsOn.map { YAMLNode.string($0) }
        entries.append(YAMLEntry("runs-on", labels.count == 1 ? labels[0] : .flowSequence(labels)))
        if let single, single.continueOnError {
            entries.append(YAMLEntry("continue-on-error", .literal("true")))
            report.add("continue_on_error -> continue-on-error", single.id)
        }
        if let single, !single.env.isEmpty {
            entries.append(YAMLEntry("env", .mapping(single.env.map { YAMLEntry($0.name, .string(literal($0.value))) })))
            report.add("env -> env", single.id)
        }
        var steps: [YAMLNode] = [.mapping([YAMLEntry("uses", .string(checkout))])]
        steps.append(
            .mapping([
                YAMLEntry("name", .string("Install flowrun")),
                YAMLEntry("run", .text(options.installCommand ?? defaultInstall)),
            ]))
        let downloads = needs.filter(\.hasFiles)
        // After a failure a need may have left no files: a `when: failure|always` job goes on without them.
        let mayLack = specs.contains { $0.when != .success }
        for need in downloads {
            steps.append(
                .mapping(
                    [YAMLEntry("name", .string("Get the files of \(need.name)"))]
                        + (mayLack ? [YAMLEntry("continue-on-error", .literal("true"))] : []) + [
                            YAMLEntry("uses", .string(downloadArtifact)),
                            YAMLEntry(
                                "with",
                                .mapping([
                                    YAMLEntry("name", .string("flowrun-\(need.name)")),
                                    YAMLEntry("path", .string("${{ runner.temp }}/flowrun-in/\(need.name)")),
                                ])),
                        ]))
        }
        if !downloads.isEmpty {
            steps.append(
                .mapping([
                    YAMLEntry("name", .string("Unpack the files of its needs")),
                    YAMLEntry("run", .text("shopt -s nullglob\nfor archive in \"$RUNNER_TEMP\"/flowrun-in/*/files.tar; do tar -xpf \"$archive\"; done")),
                ]))
            report.add("files of needs -> download-artifact", name)
        }
        steps.append(runStep(tasks, plan, options, report: &report))
        if !uploads.isEmpty {
            let tolerant = specs.contains { $0.continueOnError || $0.when != .success }
            // Globs expand in the shell, `**` too; a glob matching nothing adds nothing.
            let globs = uploads.contains { $0.contains("*") || $0.contains("?") || $0.contains("[") }
            let pack =
                (globs ? "shopt -s globstar nullglob\n" : "") + "mkdir -p \"$RUNNER_TEMP/flowrun-out\"\n"
                + "tar -cpf \"$RUNNER_TEMP/flowrun-out/files.tar\"\(tolerant ? " --ignore-failed-read" : "") -- "
                + uploads.map(ShellWords.pattern).joined(separator: " ")
            steps.append(.mapping([YAMLEntry("name", .string("Pack the files it writes")), YAMLEntry("run", .text(literal(pack)))]))
            steps.append(
                .mapping([
                    YAMLEntry("uses", .string(uploadArtifact)),
                    YAMLEntry(
                        "with",
                        .mapping([
                            YAMLEntry("name", .string("flowrun-\(name)")),
                            YAMLEntry("path", .string("${{ runner.temp }}/flowrun-out/files.tar")),
                            YAMLEntry("if-no-files-found", .string("error")),
                            YAMLEntry("retention-days", .literal("1")),
                        ])),
                ]))
            report.add("outputs / to -> upload-artifact", name)
        }
        entries.append(YAMLEntry("steps", .sequence(steps)))
        return entries
    }

    /// The step that runs the task: `flowrun run --only`, in a loop when it has retries (GitHub
    /// has none), with `timeout-minutes` covering every attempt.
    private static func runStep(_ tasks: [Int], _ plan: Plan, _ options: ExportOptions, report: inout MappingReport) -> YAMLNode {
        let specs = tasks.map { plan.tasks[$0].spec }
        var entries = [
            YAMLEntry("name", .string(literal(specs.count == 1 ? "flowrun run --only \(specs[0].id)" : "flowrun run --only (\(specs.count) tasks)")))
        ]
        guard specs.count == 1, let spec = specs.first else {
            entries.append(YAMLEntry("run", .text(literal("flowrun " + ShellWords.quoted(options.runArguments(specs.map(\.id), noRetry: false))))))
            return .mapping(entries)
        }
        let delays = retryDelays(spec)
        if let timeout = spec.timeout {
            let total = Int64(spec.retries + 1) * timeout.milliseconds + delays.reduce(0, +)
            let minutes = max(1, (total + 59_999) / 60_000)
            entries.append(YAMLEntry("timeout-minutes", .literal("\(minutes)")))
            report.add("timeout -> timeout-minutes (of the step, every attempt; flowrun stops each attempt)", spec.id)
        }
        let command = "flowrun " + ShellWords.quoted(options.runArguments([spec.id], noRetry: spec.retries > 0))
        guard spec.retries > 0 else {
            entries.append(YAMLEntry("run", .text(literal(command))))
            return .mapping(entries)
        }
        report.add("retries, retry_delay -> the step runs the task again (GitHub has no retry)", spec.id)
        var script = "# retries: \(spec.retries), retry_delay: \(spec.retryDelay) doubling up to 60s: GitHub has no retry, so the step runs the task again\n"
        script += "attempt=1\nuntil \(command); do\n  status=$?\n  [ \"$status\" -eq 1 ] || exit \"$status\"\n  case $attempt in\n"
        for (number, delay) in delays.enumerated() { script += "    \(number + 1)) sleep \(seconds(delay)) ;;\n" }
        script += "    *) exit \"$status\" ;;\n  esac\n  attempt=$((attempt + 1))\ndone"
        entries.append(YAMLEntry("run", .text(literal(script))))
        return .mapping(entries)
    }

    /// The waits between attempts, as flowrun's run waits them (without the jitter).
    static func retryDelays(_ spec: TaskSpec) -> [Int64] {
        var delay = spec.retryDelay.milliseconds
        return (0..<spec.retries).map { _ in
            defer { delay = min(delay * 2, 60_000) }
            return min(delay, 60_000)
        }
    }

    private static func seconds(_ milliseconds: Int64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : String(format: "%.3f", Double(milliseconds) / 1000)
    }

    /// The files of a job's tasks, relative to the root (outputs outside it are named as lost).
    private static func sharedFiles(of tasks: [Int], _ plan: Plan, _ options: ExportOptions, _ report: inout MappingReport) -> [String] {
        var files: [String] = []
        for task in tasks {
            for path in OnlySelection.writtenPaths(of: plan.tasks[task]) {
                if let relative = options.relative(path) {
                    if !files.contains(relative) { files.append(relative) }
                } else {
                    report.notCarried.append("output \(path) of task '\(plan.tasks[task].id)' is outside \(options.root): not handed to the jobs that need it")
                }
            }
        }
        return files
    }

    /// A job's name before it is made a valid id: its task, or its first task.
    private static func jobName(of tasks: [Int], _ plan: Plan) -> String {
        tasks.count == 1 ? plan.tasks[tasks[0]].id : "group-" + plan.tasks[tasks[0]].id
    }

    /// Text GitHub would evaluate: `${{` starts an expression everywhere in a workflow.
    static func literal(_ text: String) -> String {
        // Foundation's search is slow; most values hold no `{` at all.
        guard text.utf8.contains(UInt8(ascii: "{")) else { return text }
        return text.replacingOccurrences(of: "${{", with: "${{ '${{' }}")
    }

    /// Text for a field GitHub allows no expression in at all (the workflow's `name`), where
    /// `literal`'s `${{ '${{' }}` is refused too: `${{` is broken up as `${ {`.
    static func staticText(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "{")) else { return text }
        return text.replacingOccurrences(of: "${{", with: "${ {")
    }

    static let defaultInstall = """
        # Replace this step with how your runners get flowrun (or export with --install COMMAND).
        command -v flowrun >/dev/null || { echo "::error::flowrun is not on PATH: replace the step 'Install flowrun'"; exit 1; }
        """

    /// What has no GitHub counterpart.
    private static func notes(_ plan: Plan, _ report: inout MappingReport) {
        for queue in plan.workflow.queues {
            let tasks = plan.tasks.filter { $0.spec.queue == queue.name }.map(\.id)
            guard !tasks.isEmpty else { continue }
            report.notCarried.append(
                "queue '\(queue.name)' (concurrency \(queue.concurrency); \(list(tasks))): GitHub has no job queue; its jobs start as their needs allow")
        }
        if let concurrency = plan.workflow.concurrency {
            report.notCarried.append("concurrency: \(concurrency): GitHub starts every job whose needs are done, as runners allow")
        }
        if plan.workflow.failFast, plan.tasks.count > 1 {
            report.notCarried.append("fail_fast: after a failure GitHub still starts the jobs that do not need it (as flowrun --keep-going)")
        }
        let prioritised = plan.tasks.filter { $0.spec.priority != .normal }.map(\.id)
        if !prioritised.isEmpty { report.notCarried.append("priority (\(list(prioritised))): GitHub has no job priority") }
        let retried = plan.tasks.filter { $0.spec.retries > 0 }.map(\.id)
        if !retried.isEmpty { report.notCarried.append("retry_delay's jitter (\(list(retried))): the step waits the delays exactly") }
        var needed = [Bool](repeating: false, count: plan.tasks.count)
        for task in plan.tasks { for need in task.needs { needed[need] = true } }
        let silent = plan.tasks.indices.filter { needed[$0] && OnlySelection.writtenPaths(of: plan.tasks[$0]).isEmpty }.map { plan.tasks[$0].id }
        if !silent.isEmpty {
            report.notCarried.append(
                "files of tasks that declare no outputs (\(list(silent))): the jobs that need them get none of their files; declare `outputs:` to hand them on")
        }
    }

    static func list(_ ids: [TaskID]) -> String { MappingReport.list(ids) }
}
