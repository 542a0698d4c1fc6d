import FlowEngine
import FlowModel
import FlowPlanning
import Foundation

/// Runs each task with the runner of its action: the one `TaskRunner` a real run uses.
///
/// One per run: it makes the run's loop (`OutputLoop`), on which the engine runs and every
/// runner here starts its attempts, and ends it after the run (`finishRun()`). No runner blocks
/// the loop: the long work of an action runs on a thread or event loop of its own and reports
/// back through the loop (`ActionAttempt`).
package struct ActionRunner: TaskRunner {
    private let outputLoop = OutputLoop()
    private let shell: ShellRunner
    private let download: DownloadRunner
    private let decompress: DecompressRunner
    private let combine: CombineRunner
    /// The download, decompress and combine attempts not ended yet, clean-up included.
    package let unfinishedAttempts = UnfinishedAttempts()
    /// Found once for the run: each task's output lines and failure reason are masked with
    /// those in its environment.
    private let environmentSecrets: EnvironmentSecrets

    /// The action kinds this flowrun runs; a plan with another kind is refused before the run.
    package static let runnableKinds: Set<String> = ["shell", "download", "decompress", "combine", "group"]

    /// - Parameter forceColour: tell shell tasks to colour their output (`ShellRunner`).
    /// - Parameter secretOverrides: the plan's secret `--env` and dotenv values (`Plan.secretOverrides`).
    package init(
        processEnvironment: [String: String] = ProcessInfo.processInfo.environment, forceColour: Bool = false,
        secretOverrides: [String: String] = [:]
    ) {
        environmentSecrets = EnvironmentSecrets(secretOverrides: secretOverrides, processEnvironment: processEnvironment)
        shell = ShellRunner(loop: outputLoop, processEnvironment: processEnvironment, forceColour: forceColour)
        download = DownloadRunner(environment: processEnvironment, loop: outputLoop, unfinished: unfinishedAttempts)
        decompress = DecompressRunner(loop: outputLoop, unfinished: unfinishedAttempts)
        combine = CombineRunner(loop: outputLoop, unfinished: unfinishedAttempts)
    }

    /// The engine's loop for this run: the shell runner's output loop.
    package var loop: any EngineLoop { outputLoop }

    /// Ends what the runners keep for the run (HTTP clients, partial downloads), then the
    /// run's loop: once, after the run, whatever its outcome.
    package func finishRun() {
        download.finishRun()
        outputLoop.end()
    }

    package func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
        // Here, for every action kind, with one mask: each output line before it becomes an
        // event, and the attempt's failure reason, which the events, the record and JUnit carry.
        let mask = SecretMask(outputOf: task, environmentSecrets: environmentSecrets.values(of: task))
        let events = events.masking(mask)
        let completion = mask.secrets.isEmpty ? completion : { @Sendable result in completion(result.masked(mask)) }
        switch task.spec.action {
        case .shell:
            return shell.startAttempt(of: task, attempt: attempt, events: events, completion: completion)
        case .download:
            return download.startAttempt(of: task, attempt: attempt, events: events, completion: completion)
        case .decompress:
            return decompress.startAttempt(of: task, attempt: attempt, events: events, completion: completion)
        case .combine:
            return combine.startAttempt(of: task, attempt: attempt, events: events, completion: completion)
        case .group:
            // The engine ends a group itself, without an attempt (`Engine`); nothing to run here.
            completion(.succeeded)
            return ShellRunner.NotStarted()
        }
    }
}
