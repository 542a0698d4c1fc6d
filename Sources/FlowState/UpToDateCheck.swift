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
    /// Each running tracked task's inputs as they were at its start.
    private var inputsAtStart: [Int: InputsAtStart] = [:]
    /// What each task left when it succeeded in this run, or was found up to date: nil for one
    /// not recorded (it did not make an output, or an input changed while it ran).
    private var built: [FingerprintLog.TaskRecord?]
    private var failure: FingerprintLogError?
    /// Each task's definition and env digests, taken before the run (they depend on the plan
    /// alone), on both cores for a large plan.
    private let definitions: [TaskFingerprint.Definition]

    /// - Parameter force: run every task (`--force`); successes are still recorded.
    package init(plan: Plan, log: FingerprintLog, force: Bool) {
        self.plan = plan
        self.log = log
        self.force = force
        current = [TaskFingerprint?](repeating: nil, count: plan.tasks.count)
        values = [String?](repeating: nil, count: plan.tasks.count)
        built = [FingerprintLog.TaskRecord?](repeating: nil, count: plan.tasks.count)
        definitions = TaskFingerprint.definitions(of: plan.tasks)
    }

    /// Whether any task of the workflow has a recorded success.
    package var hasHistory: Bool { lock.withLock { !log.tasks.isEmpty } }

    /// The first write to the log that failed, if one did: later runs may then run tasks again.
    package var writeFailure: FingerprintLogError? { lock.withLock { failure } }

    package func skipReason(for index: Int) -> String? {
        lock.withLock {
            let task = plan.tasks[index]
            var fingerprint = TaskFingerprint.of(definitions[index], inputs: TaskFingerprint.noInputs, needValues: task.needs.map(value(of:)))
            remember(fingerprint, of: index)
            guard TaskDefinition.isTracked(task) else { return nil }
            // Inputs are hashed only when all else matches the record. A task that runs anyway
            // has them hashed at its success, so that a large input it was never run on (a new
            // task, a changed command) does not hold up its start, its timeout or a Ctrl-C.
            var digests = FileDigests(known: log.files)
            if !force, let record = log.tasks[task.id], record.fingerprint.definition == fingerprint.definition,
                record.fingerprint.environment == fingerprint.environment, record.fingerprint.needs == fingerprint.needs
            {
                let (inputs, missing) = digests.digest(ofPatterns: TaskDefinition.inputs(of: task))
                fingerprint.inputs = inputs
                remember(fingerprint, of: index)
                if missing.isEmpty, reasonToRun(task, fingerprint, digests: &digests) == nil {
                    for (path, record) in digests.takeFresh() { log.noteFile(path, record) }
                    built[index] = record
                    return Self.reason
                }
            } else {
                inputsAtSuccess.insert(index)
            }
            // Taken before the task starts: an input it changes makes it run again next time.
            inputsAtStart[index] = InputsAtStart(TaskDefinition.inputs(of: task), digests: &digests)
            hashedInputs[index] = digests.fresh
            note { () throws(FingerprintLogError) in try log.forget(task.id) }
            return nil
        }
    }

    package func taskSucceeded(_ index: Int) {
        lock.withLock {
            let task = plan.tasks[index]
            var hashed = hashedInputs.removeValue(forKey: index) ?? []
            let atStart = inputsAtStart.removeValue(forKey: index)
            let hashInputsNow = inputsAtSuccess.remove(index) != nil
            guard TaskDefinition.isTracked(task), var fingerprint = current[index] else { return }
            var digests = FileDigests(known: log.files)
            // The result stands, but what it was made from is gone: not up to date next time.
            guard atStart?.areUnchanged(digests: &digests) ?? false else { return }
            if hashInputsNow {
                fingerprint.inputs = digests.digest(ofPatterns: TaskDefinition.inputs(of: task)).digest
                remember(fingerprint, of: index)
            }
            let (outputs, missing) = digests.digest(ofPatterns: TaskDefinition.outputs(of: task))
            // An output the task did not make: it runs again next time, as make would.
            guard missing.isEmpty else { return }
            hashed += digests.takeFresh()
            let record = FingerprintLog.TaskRecord(fingerprint: fingerprint, outputs: outputs)
            built[index] = record
            note { () throws(FingerprintLogError) in try log.recordSuccess(of: task.id, record, files: hashed) }
        }
    }

    /// The fingerprint of the task at `index` in this run, once it was checked (`--resume` records it).
    package func fingerprint(at index: Int) -> TaskFingerprint? {
        lock.withLock { current[index] }
    }

    /// What the task at `index` left in this run, once it succeeded or was found up to date:
    /// its fingerprint and its outputs' digest (`--resume` records them); nil if it was not
    /// recorded as built.
    package func builtRecord(at index: Int) -> FingerprintLog.TaskRecord? {
        lock.withLock { built[index] }
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
    func reasonToRun(_ task: PlannedTask, _ fingerprint: TaskFingerprint, digests: inout FileDigests) -> RunReason? {
        Self.reasonToRun(recorded: log.tasks[task.id], fingerprint: fingerprint) {
            digests.digest(ofPatterns: TaskDefinition.outputs(of: task))
        }
    }

    /// The rule by which a task's work is kept, by this check and by `--resume`: why it must
    /// run, given what it left when it succeeded (`recorded`), its fingerprint now and its
    /// outputs now (their digest and the patterns that name no file, taken only if needed);
    /// nil if it is up to date. The reason names the first missing output; which file changed
    /// is found only for `--dry-run` (`explained(_:of:digests:)`), as a run does not show it.
    package static func reasonToRun(
        recorded: FingerprintLog.TaskRecord?, fingerprint: TaskFingerprint, outputs: () -> (digest: String, missing: [String])
    ) -> RunReason? {
        guard let recorded else { return RunReason(.neverRan) }
        if recorded.fingerprint.definition != fingerprint.definition { return RunReason(.changedCommand) }
        if recorded.fingerprint.environment != fingerprint.environment { return RunReason(.changedEnv) }
        if recorded.fingerprint.inputs != fingerprint.inputs { return RunReason(.changedInput) }
        if recorded.fingerprint.needs != fingerprint.needs { return RunReason(.changedNeed) }
        let (outputs, missing) = outputs()
        if let first = missing.first { return RunReason(.missingOutput, path: ReasonPath(path: first, pattern: first)) }
        if outputs != recorded.outputs { return RunReason(.changedOutput) }
        return nil
    }

    /// `reason` with the first changed input or output file of `task` named, when it can be told.
    static func explained(_ reason: RunReason, of task: PlannedTask, digests: inout FileDigests) -> RunReason {
        var reason = reason
        switch reason.kind {
        case .changedInput: reason.path = digests.firstChange(inPatterns: TaskDefinition.inputs(of: task))
        case .changedOutput: reason.path = digests.firstChange(inPatterns: TaskDefinition.outputs(of: task))
        default: break
        }
        return reason
    }

    /// What `--dry-run` shows: for each task of the plan, in order, why it would run, or nil if
    /// it is up to date now. A task's needs are taken as they are now: one that runs first may
    /// still change its inputs.
    package func preview() -> [RunReason?] {
        lock.withLock {
            var reasons: [RunReason?] = []
            for (index, task) in plan.tasks.enumerated() {
                var fingerprint = TaskFingerprint.of(definitions[index], inputs: TaskFingerprint.noInputs, needValues: task.needs.map(value(of:)))
                remember(fingerprint, of: index)
                guard TaskDefinition.isTracked(task) else {
                    reasons.append(RunReason(.untracked))
                    continue
                }
                guard !force else {
                    reasons.append(RunReason(.forced))
                    continue
                }
                // As in a run, inputs are hashed only when all else matches the record.
                guard let recorded = log.tasks[task.id]?.fingerprint else {
                    reasons.append(RunReason(.neverRan))
                    continue
                }
                if recorded.definition != fingerprint.definition {
                    reasons.append(RunReason(.changedCommand))
                } else if recorded.environment != fingerprint.environment {
                    reasons.append(RunReason(.changedEnv))
                } else if recorded.needs != fingerprint.needs {
                    reasons.append(RunReason(.changedNeed))
                } else {
                    var digests = FileDigests(known: log.files)
                    let (inputs, missing) = digests.digest(ofPatterns: TaskDefinition.inputs(of: task))
                    fingerprint.inputs = inputs
                    remember(fingerprint, of: index)
                    if let first = missing.first {
                        reasons.append(RunReason(.missingInput, path: ReasonPath(path: first, pattern: first)))
                    } else {
                        reasons.append(reasonToRun(task, fingerprint, digests: &digests).map { Self.explained($0, of: task, digests: &digests) })
                    }
                }
            }
            return reasons
        }
    }

    /// The resume key of the task's last recorded success (`FingerprintLog.TaskRecord.resumeKey`),
    /// if the log has one: when it is the one a run resumed recorded, this check's reason is
    /// also why `--resume` runs the task again.
    package func recordedResumeKey(of task: TaskID) -> String? {
        lock.withLock { log.tasks[task]?.resumeKey }
    }
}
