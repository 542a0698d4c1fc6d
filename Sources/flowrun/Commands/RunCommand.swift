import ArgumentParser
import CLinux
import FlowActions
import FlowConsole
import FlowEngine
import FlowEvents
import FlowModel
import FlowPlanning
import FlowState
import Foundation

/// `flowrun [run] FILE [TASK...]`
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a workflow: every task, or the named tasks and everything they need.",
        discussion: """
            With no FILE, runs flowrun.yaml (or flowrun.yml) from the current folder or the nearest \
            parent that has one (-d/--dir: from DIR).

            While it runs: Ctrl-C (SIGINT), SIGTERM or SIGHUP cancels (running tasks get SIGTERM, \
            then SIGKILL after --grace seconds); a second Ctrl-C or a SIGQUIT kills at once; SIGUSR1 \
            pauses the queues (running tasks go on, none starts) and SIGUSR2 resumes them. Processes \
            that left a task's process group are killed when the run ends.

            Cleanup on cancel (as GitHub's always() steps): a cancelled run still runs its \
            'when: always' tasks once their needs have ended, and lets those running go on, for \
            the --grace period; then they get SIGTERM, and SIGKILL after --grace more. A second \
            Ctrl-C or a SIGQUIT kills them too. The exit status stays the signal's.

            flowrun FILE TASK... -- ARGS...: ARGS go to the named tasks (not their needs): a \
            script's "$@", the end of an argv list, and FLOWRUN_ARGS (shell-quoted) in their env.

            Exit status: 0 every task succeeded; 1 a task failed, or an output could not be \
            written; 2 invalid file or usage; 129 hung up (SIGHUP); 130 interrupted (SIGINT); \
            131 quit (SIGQUIT); 141 standard output was closed; 143 terminated (SIGTERM).
            """
    )

    @Argument(help: ArgumentHelp("The workflow file.", valueName: "FILE"), completion: WorkflowCompletion.fileOrTask)
    var file: String?

    @Argument(help: ArgumentHelp("Run only these tasks and what they need (default: every task).", valueName: "TASK"), completion: WorkflowCompletion.task)
    var tasks: [String] = []

    @Option(
        name: .customLong("only"), parsing: .upToNextOption,
        help: ArgumentHelp("Run exactly these tasks, taking their needs as done (their outputs must be there).", valueName: "TASK"),
        completion: WorkflowCompletion.task)
    var only: [String] = []

    @Flag(help: "Run each task once, whatever its retries (for an engine that retries, as exported jobs do).")
    var noRetry = false

    @Flag(help: "Check the file and print the plan (order, waves, queues, resolved urls and paths); run nothing.")
    var dryRun = false

    @Option(
        name: [.customShort("j", allowingJoined: true), .customLong("concurrency")],
        help: ArgumentHelp("Most tasks executing at once (overrides the file).", valueName: "N"))
    var concurrency: Int?

    @OptionGroup var workflow: WorkflowOptions

    @OptionGroup(title: "Run record") var recording: RecordOptions

    @Flag(help: "After a failure, keep starting tasks that do not depend on it (as fail_fast: false).")
    var keepGoing = false

    @Option(help: ArgumentHelp("Seconds a cancelled task has between SIGTERM and SIGKILL (0 to 86400).", valueName: "SECONDS"))
    var grace: Double = 10

    @Option(
        help: ArgumentHelp(
            "How to show the run: human (live view; default on a terminal, unless CI is set), plain (one line per event; default otherwise) or jsonl.",
            valueName: "MODE"))
    var events: EventsMode?

    @Option(help: ArgumentHelp("Also write the JSON Lines event stream to this file.", valueName: "PATH"), completion: .file())
    var eventsFile: String?

    @Option(help: ArgumentHelp("Write a JUnit XML report (one testcase per task) to this file.", valueName: "PATH"), completion: .file())
    var junit: String?

    @OptionGroup(title: "Run report") var report: RunReportOptions

    @Flag(help: "Do not use colour (also: the NO_COLOR variable).")
    var noColor = false

    @Option(
        help: ArgumentHelp(
            "The live view's end summary: auto (a row per task; above 50 tasks, the failures and the 10 slowest) or all (a row per task).",
            valueName: "MODE"))
    var summary: SummaryMode = .auto

    @Flag(help: "Run every task, even those whose inputs and outputs are up to date.")
    var force = false

    @Flag(
        help: ArgumentHelp(
            "Resume the last run of FILE: its succeeded tasks that did not change are skipped (done-before); the others and their dependents run. `--resume RUN FILE` resumes run RUN (see flowrun runs)."
        ))
    var resume = false

    @Option(help: ArgumentHelp("Resume this run (as --resume RUN).", valueName: "RUN"))
    var resumeFrom: String?

    @Flag(
        name: [.customShort("v"), .long],
        help: ArgumentHelp(
            "Echo each task's command as it starts (secrets as ***) and name each task up to date or done before; with --dry-run, list the tasks up to date too."
        ))
    var verbose = false

    /// Replaces every action by one that succeeds at once: measures the engine alone (bench/).
    /// The plan is read from (and kept in) the compiled-plan cache as in any run; no run record
    /// is written, as with `--no-record`.
    @Flag(help: .private)
    var engineOnly = false

    static let longestGrace = 86_400.0

    func validate() throws {
        if let concurrency, concurrency < 1 { throw ValidationError("-j/--concurrency must be at least 1") }
        if force, resume || resumeFrom != nil { throw ValidationError("--force runs every task; --resume keeps some: use one of them") }
        // nan and inf would make no deadline (or crash one); a day is more than any task needs to stop.
        guard grace.isFinite, (0...Self.longestGrace).contains(grace) else {
            throw ValidationError("--grace must be a number of seconds from 0 to \(Int(Self.longestGrace))")
        }
    }

    /// Whether this run takes the signals (`RunSignals`): every run but a dry one.
    var takesSignals: Bool { !dryRun }

    func run() throws {
        // First, while the process has one thread (RunSignals explains why), and before
        // anything is opened: opening a FIFO or reading a terminal blocks until Ctrl-C.
        var signals: RunSignals?
        if takesSignals {
            RunSignals.blockSignals()
            // The watchdog is forked now, while the process is one thread and a small heap:
            // what the run allocates later lies on pages it never shares with the child. Forked
            // once the plan was read, every page of the plan was shared copy-on-write, and the
            // up-to-date check's first write to each one copied it (13,100 page faults in a
            // 20,000-task no-op, issue 23). Every run gets it, whatever its tasks: the plan is not
            // known yet, and this fork is cheap.
            if !engineOnly, let problem = TaskGroups.shared.startWatchdog() {
                StandardError.write("flowrun: warning: cannot start the watchdog (\(problem)): tasks would outlive a killed flowrun\n")
            }
            signals = RunSignals(grace: grace)
        }
        // `--resume RUN FILE`: the RUN reaches us as FILE.
        let words = resume && resumeFrom == nil ? ResumeRun.split(file: file, tasks: tasks) : (resumeFrom, file, tasks)
        let named = try OnlyRun.split(only: only, file: words.file, tasks: words.tasks, workflow: workflow)
        let (file, tasks) = try workflow.locate(file: named.file, tasks: named.tasks)
        var options = workflow.planningOptions(targets: tasks, concurrency: concurrency)
        options.onlyTargets = !only.isEmpty
        options.taskArguments = TaskArgumentWords.arguments
        let cache = dryRun ? nil : CachedPlan(file: file, options: options, environment: ProcessInfo.processInfo.environment)
        guard case .planned(var plan) = try WorkflowInput.plan(file, options: options, cache: cache) else { throw ExitStatus.invalid }
        // Start-up's code (the command line's parser, the YAML parser or the plan's reader, the
        // planner) is done with: its pages leave the process's memory (9-10 MB of a 20,000-task
        // no-op's peak, issue 23); what runs next comes back from the page cache.
        if !dryRun { _ = flowrun_release_code_pages() }
        if noRetry { for index in plan.tasks.indices { plan.tasks[index].spec.retries = 0 } }
        let environment = ProcessInfo.processInfo.environment
        guard let signals else {  // a dry run
            let style = Style(enabled: Terminal.usesColor(STDOUT_FILENO, environment: environment, noColorFlag: noColor))
            let standardOutput = DescriptorWriter(descriptor: STDOUT_FILENO)
            // Before the plan: with no such run, nothing is printed but the error.
            let resumed = resume || resumeFrom != nil ? try ResumeRun.resumed(run: words.run, file: file, environment: environment) : nil
            let github = PlainLog.isGitHubActions(environment)
            PlanPrinter(style: style, githubActions: github).write(plan, order: Scheduler.startOrder(of: plan)) { standardOutput.write($0) }
            let secrets = EnvironmentSecrets(secretOverrides: plan.secretOverrides, processEnvironment: environment)
            // A reason quotes a task's text (`cannot run '##[error]x'`): under GitHub Actions, as text.
            let shown: (String) -> String = { text in github ? GitHubCommandLine.asText(text) : text }
            if !engineOnly, let resumed {
                // As the run: the up-to-date check is asked first, when some task can be up to date.
                let upToDate = UpToDateRun.isNeeded(for: plan) ? try UpToDateRun.check(for: plan, environment: environment, force: force) : nil
                let check = ResumeCheck(plan: plan, inner: upToDate, resumed: resumed)
                standardOutput.write(shown(ResumeRun.preview(check, upToDate: upToDate, of: plan, secrets: secrets)))
            } else if !engineOnly, let check = try UpToDateRun.check(for: plan, environment: environment, force: force),
                UpToDateRun.isWorthShowing(check, of: plan)
            {
                standardOutput.write(
                    shown(
                        UpToDateRun.preview(check, of: plan, secrets: secrets, verbose: verbose) {
                            UpToDateRun.lastRuns(of: file, wanted: $0, environment: environment)
                        }))
            }
            if let failure = standardOutput.failure { throw CommandFailure("\(failure)", status: ExitStatus.forCommandWriteFailure(failure)) }
            return
        }
        if !engineOnly { try Self.refuseUnsupportedActions(in: plan) }
        try OnlyRun.refuseMissingOutputs(of: plan)
        try OutputPaths.refuseOverlaps(
            workflow: file, eventsFile: eventsFile, junit: junit, others: [("--report-html", report.reportHtml), ("--trace", report.trace)])
        // Read before this run's record is made (and old ones pruned).
        let resumed = resume || resumeFrom != nil ? try ResumeRun.resumed(run: words.run, file: file, environment: environment) : nil
        // An engine-only run ran no action: it leaves no record (`runs` would list successes of
        // tasks that never ran), only its compiled plan, in a state folder made for it.
        // The record's batches are written on the run's loop while it runs (and a plain log's,
        // when stdout is a file).
        let flushTimer = LoopFlushTimer()
        let recorder =
            engineOnly
            ? nil
            : try recording.startRecording(file: file, plan: plan, environment: environment, workflowDigest: cache?.workflowDigest, flushTimer: flushTimer)
        if engineOnly { try? cache?.cache.makeFolder() }
        let standardOutputClosed = StandardOutputClosed()
        // `p` pauses, in the live view only: a plain log's reader may be another program.
        let pauseKey = eventsMode(environment) == .human ? PauseKey.start { [signals] in signals.togglePause() } : nil
        defer { pauseKey?.stop() }
        var sinks = try sinks(
            environment: environment, standardOutputClosed: standardOutputClosed, plan: plan,
            commands: verbose ? TaskCommands(plan) : nil, pauseHint: PauseHint(key: pauseKey != nil, pid: getpid()), flushTimer: flushTimer)
        if let recorder { sinks.append(recorder) }
        if let timeline = try report.sink(plan: plan, file: file, recorder: recorder, environment: environment) { sinks.append(timeline) }
        let bus = EventBus(sinks: sinks)
        let upToDate =
            engineOnly || !UpToDateRun.isNeeded(for: plan)
            ? nil : try UpToDateRun.check(for: plan, environment: environment, force: force, definitions: cache?.keptDefinitions)
        // Fingerprints are taken for the record, so that a later run can resume this one.
        let resumeCheck =
            !engineOnly && (recorder != nil || resumed != nil)
            ? ResumeCheck(
                plan: plan, inner: upToDate, resumed: resumed, definitions: cache?.keptDefinitions, fingerprints: cache?.keptFingerprints)
            : nil
        if let resumeCheck { recorder?.recordFingerprints { resumeCheck.fingerprint(of: $0) } }
        // Made once nothing can throw before the run: the run's loop ends in `finishRun()`.
        let actions =
            engineOnly
            ? nil
            : ActionRunner(
                processEnvironment: environment, forceColour: sinks.contains { $0 is LiveConsole } && colour(environment),
                secretOverrides: plan.secretOverrides)
        let (runner, loop): (any TaskRunner, any EngineLoop) = actions.map { ($0, $0.loop) } ?? (NoopRunner(), SerialQueueLoop())
        if let actions { flushTimer.attach(actions.loop) }
        let engine = Engine(
            plan: plan, runner: runner, loop: loop, bus: bus,
            options: Engine.Options(
                concurrency: plan.concurrency, failFast: plan.workflow.failFast && !keepGoing, grace: grace),
            gate: resumeCheck ?? upToDate)
        if !engineOnly { LeftoverProcesses.adopt() }
        standardOutputClosed.watch(engine)
        signals.runStarted(
            engine, liveView: sinks.lazy.compactMap { $0 as? LiveConsole }.first, unfinishedAttempts: actions?.unfinishedAttempts)
        // The run's last writes wait for the disk at once, not one after the other: the
        // record's fsync, the downloads' folders' (with the HTTP clients' shutdown), the task
        // state's and the plan's (issue 23: four fsyncs in a row after the last download).
        let lastWrites = DispatchGroup()
        recorder?.syncLater(in: lastWrites)
        let status = engine.run()
        flushTimer.detach()  // the sinks are done (`run()` finished the bus); the loop ends next
        pauseKey?.stop()  // now, not at the end of this function: the summary is still to come
        if let actions { DispatchQueue.global().async(group: lastWrites) { actions.finishRun() } }
        UpToDateRun.finish(upToDate)
        cache?.storeMade(
            definitions: upToDate?.definitionDigests ?? resumeCheck?.definitionDigests, fingerprints: resumeCheck?.planFingerprints)
        lastWrites.wait()
        signals.runEnded()
        if !engineOnly {
            LeftoverProcesses.end(grace: grace, sparing: TaskGroups.shared.watchdogPid)
            TaskGroups.shared.endedCleanly()
        }
        // Each output tells its first failed write, once; it wrote nothing after it.
        let writeFailures = sinks.compactMap(\.writeFailure)
        // Stdout's reader going away (`| head`) is no error to report: the status (141) tells.
        for failure in writeFailures where !(failure.code == EPIPE && failure.output == "standard output") {
            StandardError.write("flowrun: error: \(failure)\n")
        }
        if standardOutputClosed.isClosed, signals.exitSignal == nil { throw ExitStatus.outputClosed }
        switch (status, signals.exitSignal) {
        case (.succeeded, _): if !writeFailures.isEmpty { throw ExitStatus.taskFailed }
        case (.failed, nil): throw ExitStatus.taskFailed
        case (_, let number?): throw ExitStatus.signalled(number)
        case (.cancelled, nil): throw ExitStatus.interrupted
        }
    }

    /// The console on stdout, plus the files asked for.
    /// - Parameter commands: `-v`: what the console echoes as each task starts.
    private func sinks(
        environment: [String: String], standardOutputClosed: StandardOutputClosed, plan: Plan, commands: TaskCommands?,
        pauseHint: PauseHint, flushTimer: LoopFlushTimer
    ) throws -> [any EventSink] {
        let color = colour(environment)
        let standardOutput = DescriptorWriter(descriptor: STDOUT_FILENO, onFailure: standardOutputClosed.writeFailed)
        var sinks: [any EventSink] = []
        switch eventsMode(environment) {
        case .jsonl:
            sinks.append(JSONLinesSink(writer: standardOutput))
        case .plain:
            sinks.append(
                PlainLog(
                    writer: standardOutput, githubActions: PlainLog.isGitHubActions(environment), commands: commands,
                    flushTimer: LoopFlushTimer.suits(STDOUT_FILENO) ? flushTimer : nil))
        case .human:
            sinks.append(
                LiveConsole(
                    writer: standardOutput, style: Style(enabled: color), size: { Terminal.size(of: STDOUT_FILENO) ?? (80, 24) },
                    // Made for the live view only: a map of every task, which the other modes do not read.
                    layout: RunLayout(plan), summary: summary, commands: commands, pauseHint: pauseHint))
        }
        if let eventsFile {
            do {
                sinks.append(try JSONLinesSink(creatingFileAt: eventsFile))
            } catch {
                throw CommandFailure("cannot write the events file: \(error)")
            }
        }
        if let junit {
            do {
                sinks.append(try JUnitReport(path: junit))
            } catch {
                throw CommandFailure("cannot write the JUnit report: \(error)")
            }
        }
        return sinks
    }

    /// `--events`, or what suits stdout: the live view on a terminal, unless a CI job's
    /// pseudo-terminal (which gets the plain log, unless `--events human` asks).
    private func eventsMode(_ environment: [String: String]) -> EventsMode {
        events ?? (Terminal.isInteractive(STDOUT_FILENO, environment: environment) && !ContinuousIntegration.isDetected(environment) ? .human : .plain)
    }

    /// Whether stdout gets colour; in the live view, tasks are then told to colour their output too.
    private func colour(_ environment: [String: String]) -> Bool {
        Terminal.usesColor(STDOUT_FILENO, environment: environment, noColorFlag: noColor)
    }

    /// A plan with an action this flowrun does not run yet is refused before anything starts,
    /// rather than failing half-way.
    static func refuseUnsupportedActions(in plan: Plan) throws {
        // Their positions, read in place: filtering `plan.tasks` would copy each whole task.
        let unsupported = plan.tasks.withUnsafeBufferPointer { tasks in
            tasks.indices.filter { !ActionRunner.runnableKinds.contains(tasks[$0].spec.action.kind) }
        }
        guard !unsupported.isEmpty else { return }
        let list = unsupported.prefix(5).map { plan.tasks[$0] }.map { "'\($0.id)' (\($0.spec.action.kind), \($0.spec.location))" }
            .joined(separator: ", ")
        let runnable = ActionRunner.runnableKinds.sorted().joined(separator: ", ")
        throw CommandFailure(
            """
            this flowrun runs \(runnable) tasks only. \
            Not runnable: \(list)\(unsupported.count > 5 ? " and \(unsupported.count - 5) more" : ""). \
            Use --dry-run to see the plan, or name only tasks it runs
            """)
    }
}
