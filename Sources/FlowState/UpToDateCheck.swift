import FlowEngine
import FlowModel
import FlowPlanning
import Foundation

/// Skips the tasks of a run that are up to date: their fingerprint (`TaskFingerprint`) equals the
/// one recorded at their last success, and their outputs are there with the contents recorded.
/// A task with no inputs or outputs, declared or implied by its action, always runs.
///
/// Every task gets a fingerprint when it is ready, tracked or not, so that its dependents'
/// fingerprints can include it.
package final class UpToDateCheck: TaskGate, @unchecked Sendable {
    package static let reason = SkipReason.upToDate

    private let plan: Plan
    private let log: FingerprintLog
    private let force: Bool
    private let lock = NSLock()
    private var current: [TaskFingerprint?]
    /// `current`'s whole values, taken when a dependent first needs one: most tasks are needed
    /// by several.
    private var values: [String?]
    /// Inputs hashed when a running task was checked, written to the log at its success.
    private var hashedInputs: [Int: [(path: String, record: FileRecord)]] = [:]
    /// Running tasks whose inputs are hashed at their success, not before they start.
    private var inputsAtSuccess: Set<Int> = []
    private var failure: FingerprintLogError?

    /// - Parameter force: run every task (`--force`); successes are still recorded.
    package init(plan: Plan, log: FingerprintLog, force: Bool) {
        self.plan = plan
        self.log = log
        self.force = force
        current = [TaskFingerprint?](repeating: nil, count: plan.tasks.count)
        values = [String?](repeating: nil, count: plan.tasks.count)
    }

    /// Whether any task of the workflow has a recorded success.
    package var hasHistory: Bool { lock.withLock { !log.tasks.isEmpty } }

    /// The first write to the log that failed, if one did: later runs may then run tasks again.
    package var writeFailure: FingerprintLogError? { lock.withLock { failure } }

    package func skipReason(for index: Int) -> String? {
        lock.withLock {
            let task = plan.tasks[index]
            var fingerprint = TaskFingerprint.of(task, inputs: TaskFingerprint.noInputs, needValues: task.needs.map(value(of:)))
            remember(fingerprint, of: index)
            guard TaskDefinition.isTracked(task) else { return nil }
            // Inputs are hashed only when all else matches the record. A task that runs anyway
            // has them hashed at its success, so that a large input it was never run on (a new
            // task, a changed command) does not hold up its start, its timeout or a Ctrl-C.
            if !force, let record = log.tasks[task.id], record.fingerprint.definition == fingerprint.definition,
                record.fingerprint.environment == fingerprint.environment, record.fingerprint.needs == fingerprint.needs
            {
                var digests = FileDigests(known: log.files)
                let (inputs, missing) = digests.digest(ofPatterns: TaskDefinition.inputs(of: task))
                fingerprint.inputs = inputs
                remember(fingerprint, of: index)
                if missing.isEmpty, reasonToRun(task, fingerprint) == nil {
                    for (path, record) in digests.fresh { log.noteFile(path, record) }
                    return Self.reason
                }
                hashedInputs[index] = digests.fresh
            } else {
                inputsAtSuccess.insert(index)
            }
            note { () throws(FingerprintLogError) in try log.forget(task.id) }
            return nil
        }
    }

    package func taskSucceeded(_ index: Int) {
        lock.withLock {
            let task = plan.tasks[index]
            var hashed = hashedInputs.removeValue(forKey: index) ?? []
            guard TaskDefinition.isTracked(task), var fingerprint = current[index] else { return }
            var digests = FileDigests(known: log.files)
            if inputsAtSuccess.remove(index) != nil {
                fingerprint.inputs = digests.digest(ofPatterns: TaskDefinition.inputs(of: task)).digest
                remember(fingerprint, of: index)
            }
            let (outputs, missing) = digests.digest(ofPatterns: TaskDefinition.outputs(of: task))
            // An output the task did not make: it runs again next time, as make would.
            guard missing.isEmpty else { return }
            hashed += digests.fresh
            let record = FingerprintLog.TaskRecord(fingerprint: fingerprint, outputs: outputs)
            note { () throws(FingerprintLogError) in try log.recordSuccess(of: task.id, record, files: hashed) }
        }
    }

    /// The fingerprint of the task at `index` in this run, once it was checked (`--resume` records it).
    package func fingerprint(at index: Int) -> TaskFingerprint? {
        lock.withLock { current[index] }
    }

    /// Compacts the log; call once the run has ended.
    package func finish() {
        lock.withLock { note { () throws(FingerprintLogError) in try log.compact() } }
    }

    private func remember(_ fingerprint: TaskFingerprint, of task: Int) {
        current[task] = fingerprint
        values[task] = nil
    }

    private func value(of task: Int) -> String? {
        if let value = values[task] { return value }
        let value = current[task]?.value
        values[task] = value
        return value
    }

    private func note(_ change: () throws(FingerprintLogError) -> Void) {
        do { try change() } catch { if failure == nil { failure = error } }
    }

    /// Why `task`, whose fingerprint is now `fingerprint`, must run; nil if it is up to date.
    func reasonToRun(_ task: PlannedTask, _ fingerprint: TaskFingerprint) -> String? {
        guard let record = log.tasks[task.id] else { return "never ran" }
        let recorded = record.fingerprint
        if recorded.definition != fingerprint.definition { return "changed command" }
        if recorded.environment != fingerprint.environment { return "changed env" }
        if recorded.inputs != fingerprint.inputs { return "changed input" }
        if recorded.needs != fingerprint.needs { return "changed need" }
        var digests = FileDigests(known: log.files)
        let (outputs, missing) = digests.digest(ofPatterns: TaskDefinition.outputs(of: task))
        // No path in a reason: it may hold a secret value, which --dry-run never shows.
        if !missing.isEmpty { return "missing output" }
        if outputs != record.outputs { return "changed output" }
        return nil
    }

    /// What `--dry-run` shows: for each task of the plan, in order, why it would run, or nil if
    /// it is up to date now. A task's needs are taken as they are now: one that runs first may
    /// still change its inputs.
    package func preview() -> [String?] {
        lock.withLock {
            var reasons: [String?] = []
            for (index, task) in plan.tasks.enumerated() {
                var fingerprint = TaskFingerprint.of(task, inputs: TaskFingerprint.noInputs, needValues: task.needs.map(value(of:)))
                remember(fingerprint, of: index)
                guard TaskDefinition.isTracked(task) else {
                    reasons.append("no inputs or outputs")
                    continue
                }
                guard !force else {
                    reasons.append("--force")
                    continue
                }
                // As in a run, inputs are hashed only when all else matches the record.
                guard let recorded = log.tasks[task.id]?.fingerprint else {
                    reasons.append("never ran")
                    continue
                }
                if recorded.definition != fingerprint.definition {
                    reasons.append("changed command")
                } else if recorded.environment != fingerprint.environment {
                    reasons.append("changed env")
                } else if recorded.needs != fingerprint.needs {
                    reasons.append("changed need")
                } else {
                    var digests = FileDigests(known: log.files)
                    let (inputs, missing) = digests.digest(ofPatterns: TaskDefinition.inputs(of: task))
                    fingerprint.inputs = inputs
                    remember(fingerprint, of: index)
                    reasons.append(missing.isEmpty ? reasonToRun(task, fingerprint) : "missing input")
                }
            }
            return reasons
        }
    }
}
