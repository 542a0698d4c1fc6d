import FlowEngine
import FlowLoading
import FlowModel
import FlowPlanning
import Foundation
import Testing

/// One attempt of any action, through its runner, as the engine starts it.
enum ActionAttemptHarness {
    /// What one attempt reported.
    struct Attempt {
        var result: AttemptResult?
        var progress: [(done: Int64, total: Int64?)] = []
    }

    /// The tasks of `yaml` planned in `folder` over `environment` (a `${NAME}` whose name looks
    /// secret takes its value from there, and is shown as `***`).
    static func tasks(_ yaml: String, in folder: String, environment: [String: String] = [:]) throws -> [PlannedTask] {
        let loaded = WorkflowLoader.decode(Array(yaml.utf8), file: "w.yaml", directory: folder, defaultName: "w")
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        var options = PlanningOptions()
        options.processEnvironment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let workflow = try #require(loaded.workflow)
        return try #require(try Planner.plan(workflow, options: options).plan).tasks
    }

    /// Runs one attempt of `task` on `runner` and waits for its completion. With `stopAtFirstProgress`,
    /// the first progress report waits until the test holds the running attempt, then stops it
    /// so: the work is then under way, and only the stop ends it.
    static func run(
        _ task: PlannedTask, on runner: any TaskRunner, stopAtFirstProgress stop: (@Sendable (any RunningAttempt) -> Void)? = nil
    ) async -> Attempt {
        let attempt = LockedBox(Attempt())
        let handle = LockedBox<(any RunningAttempt)?>(nil)
        let started = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let events = AttemptEvents(
                output: { _, _ in },
                progress: { doneCount, total, _ in
                    let first = attempt.value.progress.isEmpty
                    attempt.update { $0.progress.append((doneCount, total)) }
                    guard first, let stop else { return }
                    started.wait()
                    stop(handle.value!)
                })
            let running = runner.startAttempt(of: task, attempt: 1, events: events) { result in
                attempt.update { $0.result = result }
                done.resume()
            }
            handle.update { $0 = running }
            started.signal()
        }
        return attempt.value
    }

    static func makeFolder() throws -> String {
        let path = NSTemporaryDirectory() + "flowrun-actions-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The names in `folder`, hidden ones (temporary files and staging folders) included.
    static func contents(of folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    static func reason(_ result: AttemptResult?) -> String? {
        switch result {
        case .failed(let reason, _), .failedAdvising(let reason, _, _): reason
        case .succeeded, nil: nil
        }
    }
}
