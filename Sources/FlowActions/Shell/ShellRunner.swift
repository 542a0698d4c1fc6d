import FlowEngine
import FlowModel
import FlowPlanning
import Foundation

/// Runs `shell` tasks: a string under its interpreter (`/bin/sh -e -c` by default), a list as
/// argv with no shell.
///
/// The environment is the process environment, under the workflow's env (with `--env`), under
/// the task's env, plus `FLOWRUN_WORKFLOW_DIR` (and `FLOWRUN_RUN_TOKEN` while a watchdog runs). Nothing is substituted into the script itself.
package struct ShellRunner: TaskRunner {
    private let baseEnvironment: ChildEnvironment
    /// The PATH of a task that does not set it: flowrun's own.
    private let basePath: String?
    private let executables = ExecutableLookup()
    /// The run's loop (`OutputLoop`): the engine's loop too, so that a child's exit, the
    /// engine's step and the next spawn happen on one thread.
    private let loop: OutputLoop

    /// The variables that make tools colour output that is not a terminal (chalk, Rust's
    /// `colored`, CMake, BSD `ls`...): set when the live view shows task colours on a terminal.
    static let forcedColour = ["FORCE_COLOR": "1", "CLICOLOR_FORCE": "1"]

    /// - Parameter forceColour: add `forcedColour` to the environment, under a value flowrun's
    ///   own environment already has and under the task's env.
    package init(
        loop: OutputLoop, processEnvironment: [String: String] = ProcessInfo.processInfo.environment, forceColour: Bool = false
    ) {
        self.loop = loop
        let forced = forceColour && (processEnvironment["NO_COLOR"] ?? "").isEmpty ? Self.forcedColour : [:]
        var environment = processEnvironment.merging(forced) { own, _ in own }
        // Over an inherited one: a flowrun run by a task marks its own tasks.
        if let token = TaskGroups.shared.runToken { environment[TaskGroups.runTokenName] = token }
        baseEnvironment = ChildEnvironment(environment)
        basePath = baseEnvironment.value(of: "PATH", overrides: [])
        // With SIGCHLD ignored (a parent may pass that on), the kernel reaps children itself and
        // their exit status is lost: every task would look as if it succeeded.
        signal(SIGCHLD, SIG_DFL)
    }

    package func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        guard case .shell(let shell) = task.spec.action else {
            completion(.failed(reason: "not a shell task", exitCode: nil))
            return NotStarted()
        }
        let argv: [String]
        switch shell {
        case .script(let script): argv = task.spec.interpreter.argv(running: script, arguments: task.arguments)
        case .argv(let words): argv = task.arguments.isEmpty ? words : words + task.arguments
        }
        do {
            let launched: ProcessLauncher.Launched
            if task.environment.isEmpty {
                // flowrun's own two variables only: its PATH, and the envp kept for the folder.
                launched = try baseEnvironment.withTaskEntries(workflowDirectory: task.workflowDirectory, task: task.id) { environment in
                    try launch(argv, path: basePath, environment: environment, workdir: task.workdir)
                }
            } else {
                let overrides = environmentOverrides(for: task)
                let path = baseEnvironment.value(of: "PATH", overrides: overrides)
                launched = try baseEnvironment.withEntries(overrides: overrides) { environment in
                    try launch(argv, path: path, environment: environment, workdir: task.workdir)
                }
            }
            return ChildProcess(launched, loop: loop, events: events, completion: completion)
        } catch let error as ProcessLauncher.LaunchError {
            completion(ActionFailure(error.message).result)
        } catch {
            completion(ActionFailure("\(error)").result)
        }
        return NotStarted()
    }

    /// Looks the program up on the task's PATH and spawns it. A remembered path that fails as
    /// if the program had moved (ENOENT, ENOTDIR, EACCES) is forgotten and looked up once more.
    private func launch(
        _ argv: [String], path: String?, environment: UnsafePointer<UnsafeMutablePointer<CChar>?>, workdir: String
    ) throws(ProcessLauncher.LaunchError) -> ProcessLauncher.Launched {
        var searchedAgain = false
        while true {
            switch executables.resolve(argv[0], path: path, workdir: workdir) {
            case .notFound(let code):
                throw .cannotRun(argv[0], code: code)
            case .found(let executable):
                do {
                    return try ProcessLauncher.launch(argv, executable: executable, environment: environment, directory: workdir)
                } catch  where !searchedAgain && !argv[0].contains("/") && [ENOENT, ENOTDIR, EACCES].contains(error.code) {
                    executables.forget(argv[0], path: path, workdir: workdir)
                    searchedAgain = true
                }
            }
        }
    }

    /// What a task sets over the process environment: its variables, then flowrun's own
    /// (`ChildEnvironment.withTaskEntries` gives the same for a task with none of its own).
    func environmentOverrides(for task: PlannedTask) -> [(name: String, value: String)] {
        task.environment.map { ($0.name, $0.value) }
            + [(ChildEnvironment.workflowDirectoryName, task.workflowDirectory), (ChildEnvironment.taskName, task.id)]
    }

    struct NotStarted: RunningAttempt {
        func terminate() {}
        func kill() {}
    }
}
