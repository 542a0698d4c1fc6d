import FlowEngine
import FlowModel
import FlowPlanning
import Foundation

/// Takes the fingerprint of every task of a recorded run, for a later `--resume`, and with
/// `--resume` skips the tasks that succeeded in the run resumed and have not changed since.
///
/// A task is done before when it succeeded in that run (or was kept as up to date or done
/// before there), its fingerprint (`TaskFingerprint`: definition, env, inputs, needs) equals the
/// one recorded then, its outputs, if it declares any, are there, and none of its needs runs now: the dependents of a task that runs again
/// run too, as GitHub's "re-run failed jobs" reruns the jobs that need a failed one. Unlike the
/// up-to-date check, a task with no `inputs` or `outputs` is kept too: what it made is taken on
/// the earlier run's word, as Nextflow's `-resume` does.
///
/// The up-to-date check (`inner`), when there is one, is asked first, so that its state stays
/// whole, and its fingerprints are taken rather than hashing inputs twice. Inputs are hashed before a task starts only when the run resumed says it succeeded;
/// a task that runs has them hashed at its success, for the record.
package final class ResumeCheck: TaskGate, @unchecked Sendable {
    /// A run to resume: its id, and each task's end and fingerprint there.
    package struct Resumed: Sendable {
        package var run: String
        package var tasks: [TaskID: RecordedTask]

        package init(run: String, tasks: [TaskID: RecordedTask]) {
            self.run = run
            self.tasks = tasks
        }
    }

    private let plan: Plan
    private let inner: UpToDateCheck?
    private let resumed: Resumed?
    private let lock = NSLock()
    private var fingerprints: [TaskFingerprint?]
    /// Tasks that run in this run (the gate did not skip them).
    private var runs: [Bool]
    private var indexes: [TaskID: Int] = [:]

    package init(plan: Plan, inner: UpToDateCheck?, resumed: Resumed?) {
        self.plan = plan
        self.inner = inner
        self.resumed = resumed
        fingerprints = [TaskFingerprint?](repeating: nil, count: plan.tasks.count)
        runs = [Bool](repeating: false, count: plan.tasks.count)
        for (index, task) in plan.tasks.enumerated() { indexes[task.id] = index }
    }

    package var resumedRun: String? { resumed?.run }

    package func skipReason(for index: Int) -> String? {
        if let reason = inner?.skipReason(for: index) {
            lock.withLock { fingerprints[index] = inner?.fingerprint(at: index) ?? fingerprint(of: index) }
            return reason
        }
        return lock.withLock {
            let task = plan.tasks[index]
            if let resumed, let recorded = resumed.tasks[task.id], recorded.state.isSuccess, let value = recorded.fingerprint,
                !task.needs.contains(where: { runs[$0] }), Self.outputsExist(of: task)
            {
                let now = fingerprint(of: index)
                if now.value == value {
                    fingerprints[index] = now
                    return SkipReason.doneBefore
                }
            }
            runs[index] = true
            return nil
        }
    }

    package func taskSucceeded(_ index: Int) {
        inner?.taskSucceeded(index)
        // The up-to-date check has hashed the inputs already: the same fingerprint, taken once.
        lock.withLock { fingerprints[index] = inner?.fingerprint(at: index) ?? fingerprint(of: index) }
    }

    /// The fingerprint of `task` in this run, once known (it ended, or was skipped): what the
    /// record keeps for a later `--resume`.
    package func fingerprint(of task: TaskID) -> String? {
        lock.withLock { indexes[task].flatMap { fingerprints[$0]?.value } }
    }

    /// Whether each declared (or implied) output of `task` names a file: one deleted since is
    /// made again, as Nextflow's `-resume` reruns a task whose outputs are gone.
    private static func outputsExist(of task: PlannedTask) -> Bool {
        TaskDefinition.outputs(of: task).allSatisfy { !PathGlob.files(matching: $0).isEmpty }
    }

    /// The task's fingerprint now, its needs' taken as they ended in this run.
    private func fingerprint(of index: Int) -> TaskFingerprint {
        let task = plan.tasks[index]
        return TaskFingerprint.of(task, needs: task.needs.map { fingerprints[$0] }, files: [:]).fingerprint
    }
}

extension RecordedTask.State {
    /// Whether the task's work was done in that run: it succeeded, or was kept from an earlier one.
    var isSuccess: Bool {
        switch self {
        case .succeeded: true
        case .skipped(let reason): reason == SkipReason.upToDate || reason == SkipReason.doneBefore
        case .failed, .cancelled, .unfinished: false
        }
    }
}
