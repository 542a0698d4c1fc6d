import FlowEngine
import FlowFiles
import FlowModel
import FlowPlanning
import Foundation

/// Takes the fingerprint of every task of a recorded run, for a later `--resume`, and with
/// `--resume` skips the tasks that succeeded in the run resumed and have not changed since.
///
/// A task is done before when it succeeded in that run (or was kept as up to date or done
/// before there), none of its needs runs now (the dependents of a task that runs again run
/// too, as GitHub's "re-run failed jobs" reruns the jobs that need a failed one), and it passes
/// the up-to-date check's rule (`UpToDateCheck.reasonToRun`) against what it left then: its
/// fingerprint (`TaskFingerprint`: definition, env, inputs, needs) and its declared outputs'
/// contents are those recorded at its success. The record keeps the two as one digest
/// (`resumeKey`). Unlike the up-to-date check, a task with no `inputs` or `outputs` is kept
/// too: what it made is taken on the earlier run's word, as Nextflow's `-resume` does. A task
/// whose output was missing at its success, or whose input changed while it ran, has no key
/// and runs again.
///
/// The up-to-date check (`inner`), when there is one, is asked first, so that its state stays
/// whole, and what it recorded is taken rather than hashing files twice. Inputs are hashed
/// before a task starts only when the run resumed says it succeeded, off the engine's loop
/// (`check(_:decided:)`); a task that runs has them hashed at its success, for the record.
///
/// The engine's step does no hashing but the files': at a task's success (`keep`) its inputs
/// and outputs are read as they are then, and put in `left`; its fingerprint and key, five
/// SHA-256 over short texts, are taken from that when the record asks for them (`settle`),
/// which is after the step has started the next tasks, and under `lock`, not the engine's.
/// On a graph of small tasks that hashing held up every next spawn (issue 23). The digest of a
/// task's definition (its text built, then hashed) depends on the plan alone: it is taken from
/// the compiled plan when the run read it from the cache, else once a task, and handed to the
/// cache for the next run (`definitionDigests`); what is left a task is its needs' digest, the
/// whole value and the key. In a workflow that declares no inputs or outputs (no up-to-date
/// check), those three depend on the plan alone for a task whose needs all succeeded: they are
/// kept with the compiled plan too (`planFingerprints`, `PlanFingerprints`), and a run that read
/// them there takes a task's value and key from it when each of its needs' were taken so (or
/// so made) in this run: the same bytes, no hashing.
///
/// - Warning: `left` is guarded by `leftLock`, everything else that changes by `lock`. The
///   engine's step takes only `leftLock` (unless a run is resumed, which decides under `lock`).
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

    /// What a task the up-to-date check does not track left at its end (it succeeded), as read
    /// then: all its fingerprint and key are taken from, apart from its needs' fingerprints. A
    /// tracked task leaves nothing here: its fingerprint and record stay in that check, asked for
    /// when needed, so that a run of up-to-date tasks copies none of them (issue 23).
    private enum Left {
        /// One that check took the fingerprint of; its outputs' digest (nil: one was missing).
        case taken(Int, TaskFingerprint, outputs: String?)
        /// Any other: its inputs' digest, to take its fingerprint from, and its outputs'.
        case read(Int, inputs: String, outputs: String?)
    }

    private let plan: Plan
    private let inner: UpToDateCheck?
    private let resumed: Resumed?
    /// The definition digests kept with the compiled plan, if the run read them there.
    private let keptDefinitions: DefinitionDigests?
    /// The values and keys that depend on the plan alone, kept with the compiled plan, if the
    /// run read them there; only without an up-to-date check (`inner`), whose fingerprints are
    /// its own.
    private let keptPlain: PlanFingerprints?
    private let lock = NSLock()
    /// What this check keeps by task, made when first needed: a run of up-to-date tasks needs
    /// none of it. A class, because a `lazy var` of a value type is copied whole by each write
    /// through it (a 5,000-task run spent 1.9 s of CPU copying these arrays).
    /// Under `lock`.
    private lazy var tables = Tables(plan)
    /// The tasks the up-to-date check tracks that ended kept (they succeeded, or were up to date):
    /// their fingerprints are that check's. Under `leftLock` (a task may end while `lock` is held).
    private lazy var keptTracked = KeptTracked(count: plan.tasks.count)
    private let leftLock = NSLock()
    /// As the up-to-date check's: a need without a record gives its dependents a line no
    /// record matches.
    private let unrecordedOutputs = UpToDateCheck.unrecordedMarker()
    /// Under `run --only`, the needs of each task with a need taken as done, as a whole run has them.
    private let needsUnderOnly: [Int: [NeedOfOnly]]?
    /// What tasks left, in the order they ended, not yet taken into `fingerprints` and `keys`.
    private var left: [Left] = []
    /// `preview(upToDate:)` is deciding: needs' outputs are taken as the state kept them.
    private var previewing = false
    /// `left` as `settle` took it last, kept for its storage (under `lock`).
    private var settling: [Left] = []
    /// Hashes the files of the tasks of a resumed run that may be done before, off the engine's
    /// loop (`check(_:decided:)`).
    private let hashing = DispatchQueue(label: "flowrun.resume-hashing", attributes: .concurrent)
    /// The run is being cancelled: a decision taken off the loop keeps nothing (under `lock`).
    private var stopped = false
    /// Set with `stopped`, read without `lock`: a hash under way gives up, and none starts.
    private let stop = SetOnceFlag()

    /// What `decide` tells without hashing (`precheck`).
    private enum Precheck {
        case decided(ResumeDecision)
        /// The key recorded at the task's success in the run resumed.
        case compare(key: String)
    }

    /// - Parameter definitions: the digests of the tasks' definitions kept with the compiled
    ///   plan (`PlanCache`), which spare building each task's text and hashing it; nil to take
    ///   each one when first needed.
    /// - Parameter fingerprints: the values and keys that depend on the plan alone, kept with the
    ///   compiled plan (`planFingerprints` of an earlier run of it).
    package init(
        plan: Plan, inner: UpToDateCheck?, resumed: Resumed?, definitions: DefinitionDigests? = nil, fingerprints: PlanFingerprints? = nil
    ) {
        self.plan = plan
        self.inner = inner
        self.resumed = resumed
        keptDefinitions = definitions.flatMap { $0.count == plan.tasks.count ? $0 : nil }
        keptPlain = inner == nil ? fingerprints.flatMap { $0.count == plan.tasks.count ? $0 : nil } : nil
        needsUnderOnly = NeedOfOnly.needs(in: plan)
    }

    package var resumedRun: String? { resumed?.run }

    package func skipReason(for index: Int) -> String? {
        guard case .now(let reason) = answer(index, upToDate: inner?.skipReason(for: index), later: nil) else {
            preconditionFailure("decided now")
        }
        return reason
    }

    /// The up-to-date check may hash a changed input off the loop, and this check hashes a
    /// task's files off it when the run resumed says it succeeded: the task is decided once they are.
    package func check(_ index: Int, decided: @escaping @Sendable (String?) -> Void) -> CheckAnswer {
        let upToDate =
            inner?.check(index) { [self] reason in
                // On that check's hashing queue: this check's hashes are taken there too.
                if case .now(let reason) = answer(index, upToDate: reason, later: nil) { decided(reason) }
            } ?? .now(nil)
        guard case .now(let reason) = upToDate else { return .later }
        return answer(index, upToDate: reason, later: decided)
    }

    /// The reason to skip the task at `index`, given the up-to-date check's (`upToDate`); with
    /// `later`, a task whose files are to be hashed is decided on `hashing`, and `later` called then.
    private func answer(_ index: Int, upToDate reason: String?, later: (@Sendable (String?) -> Void)?) -> CheckAnswer {
        if let reason {
            keep(index)
            return .now(reason)
        }
        // With no run to resume no task is done before, and `runs` serves only to decide that.
        guard resumed != nil else { return .now(nil) }
        let key: String
        switch lock.withLock({ precheck(index) }) {
        case .decided(let decision): return .now(lock.withLock { note(decision, of: index) })
        case .compare(let recorded): key = recorded
        }
        // A task with no inputs or outputs has nothing to hash: decided now, so that its skip
        // frees its slot in the same step and the skips of a graph of small tasks keep its order.
        // Nor is anything hashed once the run is being cancelled.
        guard let later, !stop.isSet, plan.tasks.withUnsafeBufferPointer({ TaskDefinition.isTracked($0[index]) }) else {
            return .now(concluded(index, key: key))
        }
        hashing.async { [self] in later(concluded(index, key: key)) }
        return .later
    }

    /// Hashes the task's files, without `lock`, and decides on it; nil (it runs, nothing kept)
    /// once the run is being cancelled. Then nothing is hashed, and a hash under way gives up:
    /// when the up-to-date check decides a task off the loop, this runs on its queue, which the
    /// end of a cancelled run waits for.
    private func concluded(_ index: Int, key: String) -> String? {
        guard !stop.isSet else { return nil }
        let files = Self.files(of: plan.tasks[index], fileSystem: LocalFileSystem(stop: stop))
        return lock.withLock {
            guard !stopped else { return nil }
            return note(conclude(index, key: key, files: files, upToDateReason: nil), of: index)
        }
    }

    /// The reason to skip a task given its decision; one that runs is noted so (`runs`).
    /// Called with `lock` held.
    private func note(_ decision: ResumeDecision, of index: Int) -> String? {
        if decision == .doneBefore { return SkipReason.doneBefore }
        tables.runs[index] = true
        return nil
    }

    /// What `--resume --dry-run` shows: for each task of the plan, in order, whether the resume
    /// keeps it, or why it runs. `upToDate`: the up-to-date check's (`inner`'s) preview, when
    /// there is one. Needs are taken as they are now, as the up-to-date check's preview does.
    package func preview(upToDate: [RunReason?]?) -> [ResumeDecision] {
        lock.withLock {
            previewing = true
            defer { previewing = false }
            return plan.tasks.indices.map { index in
                if let upToDate, upToDate[index] == nil {
                    keep(index)
                    return .upToDate
                }
                let decision = decide(index, upToDateReason: upToDate?[index] ?? nil)
                if decision != .doneBefore { tables.runs[index] = true }
                return decision
            }
        }
    }

    /// Whether the task at `index`, which the up-to-date check does not keep, is done before:
    /// it succeeded in the run resumed, none of its needs runs now, and its fingerprint and its
    /// outputs are those recorded then (the up-to-date rule, against the record's digest of what
    /// it left). A task kept is remembered as kept. Called with `lock` held.
    private func decide(_ index: Int, upToDateReason: RunReason?) -> ResumeDecision {
        switch precheck(index) {
        case .decided(let decision): decision
        case .compare(let key): conclude(index, key: key, files: Self.files(of: plan.tasks[index]), upToDateReason: upToDateReason)
        }
    }

    /// What `decide` tells without hashing: a decision, or the key recorded to compare the
    /// task's with once its files are hashed. Called with `lock` held.
    private func precheck(_ index: Int) -> Precheck {
        let task = plan.tasks[index]
        guard let resumed, let recorded = resumed.tasks[task.id] else { return .decided(.runs(.notInRun)) }
        guard recorded.state.isSuccess else { return .decided(.runs(.ended(recorded.state))) }
        guard let key = recorded.fingerprint else { return .decided(.runs(.notRecorded)) }
        if let need = task.needs.first(where: { tables.runs[$0] }) { return .decided(.runs(.needRuns(plan.tasks[need].id))) }
        return .compare(key: key)
    }

    /// The digests of the task's inputs and outputs now. Reads only the plan, which does not
    /// change: called with `lock` held or not.
    private static func files(
        of task: PlannedTask, fileSystem: any FileSystem = LocalFileSystem()
    ) -> (inputs: String, outputs: (digest: String, missing: [String])) {
        var digests = FileDigests(known: [:], fileSystem: fileSystem)
        let inputs = digests.digest(
            ofPatterns: TaskDefinition.inputs(of: task), leavingOut: TaskDefinition.ownOutputs(of: task),
            singleFiles: TaskDefinition.singleFileInputs(of: task)
        ).digest
        return (inputs, digests.digest(ofPatterns: TaskDefinition.outputs(of: task), areOutputs: true))
    }

    /// `decide`'s end, given the task's files' digests now (`files(of:)`). Called with `lock` held.
    private func conclude(
        _ index: Int, key: String, files: (inputs: String, outputs: (digest: String, missing: [String])), upToDateReason: RunReason?
    ) -> ResumeDecision {
        settle()
        let now = fingerprint(of: index, inputs: files.inputs)
        if let missing = files.outputs.missing.first {
            return .runs(.changed(RunReason(.missingOutput, path: ReasonPath(path: missing, pattern: missing))))
        }
        let value = now.value
        guard TaskRecord.resumeKey(value: value, outputs: files.outputs.digest) == key else {
            // The up-to-date check's reason tells this change only if its record is this success.
            let task = plan.tasks[index]
            return .runs(.changed(upToDateReason != nil && inner?.recordedResumeKey(of: task.id) == key ? upToDateReason : nil))
        }
        tables.fingerprints.remember(now, of: index, value: value)
        tables.keys[index] = key
        tables.outputs[index] = files.outputs.digest
        return .doneBefore
    }

    /// The up-to-date check's walks stop; this check's own digests (for the record) are taken whole.
    package func stopChecks() {
        stop.set()
        lock.withLock { stopped = true }
        inner?.stopChecks()
    }

    package func taskSucceeded(_ index: Int) {
        inner?.taskSucceeded(index)
        keep(index)
    }

    /// The up-to-date check hashes the task's files off the loop; what it left is kept for the
    /// record once they are (`keep(_:)` reads the check's record of it).
    package func taskSucceeded(_ index: Int, recorded: @escaping @Sendable () -> Void) -> Bool {
        guard let inner,
            inner.taskSucceeded(
                index,
                recorded: { [self] in
                    keep(index)
                    recorded()
                })
        else {
            keep(index)
            return false
        }
        return true
    }

    /// Reads what the task left (it succeeded, or was kept as up to date) for the record: its
    /// inputs' and outputs' digests now, unless the up-to-date check tracks it and so keeps its
    /// fingerprint and record (`isTrackedByInner`). The hashing is left to `settle`.
    private func keep(_ index: Int) {
        // The task read in place: `plan.tasks[index]` would copy it, at every task's end.
        let read: Left? = plan.tasks.withUnsafeBufferPointer { tasks in
            if isTrackedByInner(tasks[index]) {
                return nil
            } else if let fingerprint = inner?.fingerprint(at: index) {
                // The up-to-date check has hashed the inputs already: the same fingerprint, taken once.
                return .taken(index, fingerprint, outputs: Self.outputs(of: tasks[index]))
            } else if !TaskDefinition.isTracked(tasks[index]) {
                // No inputs or outputs (a graph of small tasks): the digests of none, as below.
                return .read(index, inputs: TaskFingerprint.noInputs, outputs: TaskFingerprint.noInputs)
            } else {
                let files = Self.files(of: tasks[index])
                return .read(index, inputs: files.inputs, outputs: files.outputs.missing.isEmpty ? files.outputs.digest : nil)
            }
        }
        guard let read else {
            leftLock.withLock { keptTracked.flags[index] = true }
            return
        }
        leftLock.withLock { left.append(read) }
    }

    /// The digest of the task's outputs now; nil if one is missing.
    private static func outputs(of task: PlannedTask) -> String? {
        var digests = FileDigests(known: [:])
        let outputs = digests.digest(ofPatterns: TaskDefinition.outputs(of: task), areOutputs: true)
        return outputs.missing.isEmpty ? outputs.digest : nil
    }

    /// Takes the fingerprints and keys of what tasks left, in the order they ended: a need's
    /// before its dependents', which take its value. Called with `lock` held.
    private func settle() {
        leftLock.withLock { swap(&left, &settling) }
        for read in settling {
            switch read {
            case .taken(let index, let fingerprint, let outputs):
                // Its whole value is that check's too (a dependent's start took it there, or
                // this takes it there for the dependents to come): one SHA-256 a task, not two.
                tables.fingerprints.remember(fingerprint, of: index, value: inner?.value(at: index))
                tables.keys[index] = key(of: index, outputs: outputs)
                tables.outputs[index] = outputs
            case .read(let index, let inputs, let outputs):
                let plain = dependsOnPlanAlone(index, inputs: inputs, outputs: outputs)
                if plain, let keptPlain, keptPlain.has(index) {
                    // Spelled out only when asked for (`value(of:)`, `key(of:)`): its key by the
                    // record, its value by a dependent that is not plain, if any.
                    tables.keptPlain[index] = true
                } else {
                    remember(fingerprint(of: index, inputs: inputs), of: index)
                    tables.keys[index] = key(of: index, outputs: outputs)
                }
                tables.plain[index] = plain
                tables.outputs[index] = outputs
            }
        }
        settling.removeAll(keepingCapacity: true)
    }

    /// Whether the fingerprint of the task at `index`, which ended kept with these digests, is
    /// one that depends on the plan alone: without an up-to-date check, it declares no inputs
    /// or outputs and every need's does too (and the need ended kept in this run, by `settle`,
    /// which takes a need's before its dependents'). Called with `lock` held.
    private func dependsOnPlanAlone(_ index: Int, inputs: String, outputs: String?) -> Bool {
        guard inner == nil, needsUnderOnly?[index] == nil, inputs == TaskFingerprint.noInputs, outputs == TaskFingerprint.noInputs else {
            return false
        }
        return plan.tasks.withUnsafeBufferPointer { tasks in
            !TaskDefinition.isTracked(tasks[index]) && tasks[index].needs.allSatisfy { tables.plain[$0] }
        }
    }

    /// The values and keys of the tasks whose fingerprint depends on the plan alone, taken in
    /// this run, for the compiled plan to keep (`PlanCache`); nil when there are none.
    package var planFingerprints: PlanFingerprints? {
        lock.withLock {
            guard inner == nil else { return nil }
            settle()
            var any = false
            let entries = plan.tasks.indices.map { index -> (value: String, key: String)? in
                guard tables.plain[index], let key = recordedKey(of: index), let value = value(of: index) else { return nil }
                any = true
                return (value, key)
            }
            return any ? PlanFingerprints(entries) : nil
        }
    }

    /// The task's key from its fingerprint and its outputs' digest; nil without either.
    /// Called with `lock` held.
    private func key(of index: Int, outputs: String?) -> String? {
        guard let outputs, let value = value(of: index) else { return nil }
        return TaskRecord.resumeKey(value: value, outputs: outputs)
    }

    /// What the task left in this run, once known (it ended, or was skipped): what the record
    /// keeps for a later `--resume`.
    package func fingerprint(of task: TaskID) -> String? {
        lock.withLock {
            guard let index = tables.indexes[task] else { return nil }
            settle()
            if let key = recordedKey(of: index) { return key }
            // A task the up-to-date check kept or recorded (none for one it did not record as built).
            return isTrackedByInner(plan.tasks[index]) ? inner?.builtResumeKey(at: index) : nil
        }
    }

    /// The task's key as this check took it, or as the compiled plan kept it. Called with `lock` held.
    private func recordedKey(of index: Int) -> String? {
        tables.keys[index] ?? (tables.keptPlain[index] ? keptPlain?.key(at: index) : nil)
    }

    /// Whether the up-to-date check tracks `task`, and so holds its fingerprint and record.
    private func isTrackedByInner(_ task: PlannedTask) -> Bool {
        inner != nil && TaskDefinition.isTracked(task)
    }

    /// The task's fingerprint given its inputs' digest, its needs' taken as they ended in this
    /// run. Called with `lock` held.
    private func fingerprint(of index: Int, inputs: String) -> TaskFingerprint {
        // The needs read in place: `plan.tasks[index].needs` would copy the whole task first.
        if let whole = needsUnderOnly?[index] {
            // Under `run --only`, as a whole run has the needs (`NeedOfOnly`): a need taken as done
            // gives the line the up-to-date check kept at its last success, so that `--resume`
            // of the `--only` run keeps the task when nothing changed (it said "changed since").
            // A need with no line kept gives one no later run matches: the task runs then.
            let needValues = whole.map { need -> String? in
                switch need {
                case .planned(let position): needLine(of: position)
                case .takenAsDone(let id): inner?.keptLine(ofNeedTakenAsDone: id) ?? unrecordedOutputs
                }
            }
            return TaskFingerprint.of(definition(of: index), inputs: inputs, needValues: needValues)
        }
        let needValues = plan.tasks.withUnsafeBufferPointer { tasks in tasks[index].needs.map(needLine(of:)) }
        return TaskFingerprint.of(definition(of: index), inputs: inputs, needValues: needValues)
    }

    /// The digests of the task's definition and env: kept with the compiled plan, else taken
    /// once. Called with `lock` held.
    private func definition(of index: Int) -> TaskFingerprint.Definition {
        // One task's, spelled out now: `items` would spell out every task's (two strings each).
        if let keptDefinitions { return keptDefinitions[index] }
        if let taken = tables.definitions[index] { return taken }
        let taken = TaskFingerprint.definition(of: plan.tasks[index])
        tables.definitions[index] = taken
        return taken
    }

    /// Every task's definition digests, for the compiled plan to keep (`PlanCache`): those this
    /// check took for the tasks that ran, and the others' taken now.
    package var definitionDigests: DefinitionDigests {
        lock.withLock {
            if let keptDefinitions { return keptDefinitions }
            let missing = plan.tasks.indices.filter { tables.definitions[$0] == nil }
            let taken = TaskFingerprint.definitions(of: missing.map { plan.tasks[$0] })
            for (index, definition) in zip(missing, taken) { tables.definitions[index] = definition }
            return DefinitionDigests(tables.definitions.map { $0! })
        }
    }

    /// Called with `lock` held.
    private func remember(_ fingerprint: TaskFingerprint?, of index: Int) {
        tables.fingerprints.remember(fingerprint, of: index)
    }

    /// What a need gives its dependents' fingerprints, as the up-to-date check takes it
    /// (`UpToDateCheck.needLine(of:preview:)`): its value and, for a task that tracks files,
    /// the digest of the outputs it left. Called with `lock` held.
    private func needLine(of index: Int) -> String? {
        guard let value = value(of: index) else { return nil }
        guard plan.tasks.withUnsafeBufferPointer({ TaskDefinition.isTracked(TaskFiles(in: $0, at: index)) }) else { return value }
        let outputs =
            leftLock.withLock({ keptTracked.flags[index] }) ? inner?.outputsDigest(at: index, preview: previewing) : tables.outputs[index]
        return value + (outputs ?? unrecordedOutputs)
    }

    /// The whole value of the task's fingerprint, taken once: this check's, else (a task the
    /// up-to-date check tracks, kept or run) that check's. Called with `lock` held.
    private func value(of index: Int) -> String? {
        if let value = tables.fingerprints.value(of: index) { return value }
        if tables.keptPlain[index] { return keptPlain?.value(at: index) }
        guard let inner, TaskDefinition.isTracked(plan.tasks[index]), leftLock.withLock({ keptTracked.flags[index] }) else { return nil }
        return inner.value(at: index)
    }
}

/// Whether each task, by plan index, ended kept (a reference, as `Tables`).
private final class KeptTracked {
    var flags: [Bool]
    init(count: Int) { flags = [Bool](repeating: false, count: count) }
}

/// `ResumeCheck`'s tables by plan index, in one reference so that writes change them in place.
private final class Tables {
    /// The fingerprints the check took (not those of the tasks the up-to-date check kept).
    var fingerprints: FingerprintValues
    /// What each task left in this run, as the record keeps it (`resumeKey`), but for a task the
    /// up-to-date check recorded, whose key is taken from its record only when the record asks
    /// for it: a run in which no task ran asks for none.
    var keys: [String?]
    /// The digest of the outputs each task that tracks files left in this run (nil: one
    /// missing), for its dependents' fingerprints (`ResumeCheck.needLine(of:)`), but for a task
    /// the up-to-date check recorded, whose digest that check holds.
    var outputs: [String?]
    /// Tasks that run in this run (the gate did not skip them); only a resumed run asks.
    var runs: [Bool]
    /// Tasks that ended kept in this run whose fingerprint depends on the plan alone
    /// (`ResumeCheck.dependsOnPlanAlone`).
    var plain: [Bool]
    /// Those of `plain` whose value and key are the compiled plan's (`PlanFingerprints`), not
    /// in `fingerprints` and `keys`: spelled out when asked for, not at every task's end.
    var keptPlain: [Bool]
    /// The digests of each task's definition and env, once taken (without the compiled plan's).
    var definitions: [TaskFingerprint.Definition?]
    let indexes: [TaskID: Int]

    init(_ plan: Plan) {
        let count = plan.tasks.count
        fingerprints = FingerprintValues(count: count)
        keys = [String?](repeating: nil, count: count)
        outputs = [String?](repeating: nil, count: count)
        runs = [Bool](repeating: false, count: count)
        plain = [Bool](repeating: false, count: count)
        keptPlain = [Bool](repeating: false, count: count)
        definitions = [TaskFingerprint.Definition?](repeating: nil, count: count)
        var indexes: [TaskID: Int] = [:]
        indexes.reserveCapacity(count)
        // Each id read in place: `enumerated()` hands out a copy of every task (a retain and a
        // release of each of its fields).
        plan.tasks.withUnsafeBufferPointer { tasks in
            for index in tasks.indices { indexes[tasks[index].spec.id] = index }
        }
        self.indexes = indexes
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

extension TaskRecord {
    /// The record's fingerprint and outputs' digest as one digest: what a run record keeps of a
    /// task for `--resume`.
    var resumeKey: String { Self.resumeKey(value: fingerprint.value, outputs: outputs) }

    /// The same, given the fingerprint's whole value already taken.
    static func resumeKey(value: String, outputs: String) -> String {
        TaskFingerprint.hash(value, "\0", outputs)
    }
}
