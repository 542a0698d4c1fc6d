import FlowEngine
import FlowModel
import FlowPlanning
import Foundation

/// Runs `shell` tasks: a string under `/bin/sh -e -c`, a list as argv with no shell.
///
/// The environment is the process environment, under the workflow's env (with `--env`), under
/// the task's env, plus `FLOWRUN_WORKFLOW_DIR`. Nothing is substituted into the script itself.
public struct ShellRunner: TaskRunner {
    private let baseEnvironment: [String: String]

    public init(processEnvironment: [String: String] = ProcessInfo.processInfo.environment) {
        baseEnvironment = processEnvironment
    }

    public func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        guard case .shell(let shell) = task.spec.action else {
            completion(.failed(reason: "not a shell task", exitCode: nil))
            return NotStarted()
        }
        let argv: [String]
        switch shell {
        case .script(let script): argv = ["/bin/sh", "-e", "-c", script]
        case .argv(let words): argv = words
        }
        do {
            let launched = try ProcessLauncher.launch(argv, environment: environment(for: task), directory: task.workdir)
            return ChildProcess(launched, events: events, completion: completion)
        } catch let error as ProcessLauncher.LaunchError {
            completion(.failed(reason: error.message, exitCode: nil))
        } catch {
            completion(.failed(reason: "\(error)", exitCode: nil))
        }
        return NotStarted()
    }

    func environment(for task: PlannedTask) -> [String] {
        var environment = baseEnvironment
        for entry in task.environment { environment[entry.name] = entry.value }
        environment["FLOWRUN_WORKFLOW_DIR"] = task.workflowDirectory
        environment["FLOWRUN_TASK"] = task.id
        return environment.map { "\($0.key)=\($0.value)" }
    }

    struct NotStarted: RunningAttempt {
        func terminate(grace: Double) {}
        func kill() {}
    }
}
