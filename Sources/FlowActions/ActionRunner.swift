import FlowEngine
import FlowModel
import FlowPlanning
import Foundation

/// Runs each task with the runner of its action: the one `TaskRunner` a real run uses.
///
/// Every runner here starts its attempts on the engine's loop (the shell runner's output loop)
/// and never blocks it: the long work of an action runs on a thread or event loop of its own
/// and reports back through the loop.
package struct ActionRunner: TaskRunner {
    private let shell: ShellRunner
    private let download: DownloadRunner
    private let decompress = DecompressRunner(loop: ShellRunner.loop)
    private let combine = CombineRunner(loop: ShellRunner.loop)

    /// The action kinds this flowrun runs; a plan with another kind is refused before the run.
    package static let runnableKinds: Set<String> = ["shell", "download", "decompress", "combine", "group"]

    /// - Parameter forceColour: tell shell tasks to colour their output (`ShellRunner`).
    package init(processEnvironment: [String: String] = ProcessInfo.processInfo.environment, forceColour: Bool = false) {
        shell = ShellRunner(processEnvironment: processEnvironment, forceColour: forceColour)
        download = DownloadRunner(environment: processEnvironment, loop: ShellRunner.loop)
    }

    /// Ends what the runners keep for a run (HTTP clients, partial downloads): after the run.
    package func finishRun() {
        download.finishRun()
    }

    /// The engine's loop for a run: the shell runner's output loop (`ShellRunner.loop`).
    package static var loop: any EngineLoop { ShellRunner.loop }

    package func startAttempt(
        of task: PlannedTask, attempt: Int, events: AttemptEvents,
        completion: @escaping @Sendable (AttemptResult) -> Void
    ) -> any RunningAttempt {
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
