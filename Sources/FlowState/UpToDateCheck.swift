import Crypto
import FlowEngine
import FlowFiles
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
    private let states: TaskStates
    private let fileSystem: any FileSystem
    /// `fileSystem` without Ctrl-C's stop, for the successes held until their files settle
    /// (`settling`): they finished before it, and their files (64 KiB at most) are read again in
    /// a moment. Read with the stop, they were dropped, and ran again next time.
    private let settlingFileSystem: any FileSystem
    private let force: Bool
    private let lock = NSLock()
    private var current: FingerprintValues
    /// The files behind the inputs' digest taken when a running task was checked, kept in the
    /// state at its success.
    private var checkedInputs: [Int: [StampedFile]] = [:]
    /// Running tasks whose inputs are hashed at their success, not before they start.
    private var inputsAtSuccess: Set<Int> = []
    /// Each running tracked task's inputs as they were at its start.
    private var inputsAtStart: [Int: InputsAtStart] = [:]
    /// What each task left when it succeeded in this run, or was found up to date: nil for one
    /// not recorded (it did not make an output, or an input changed while it ran).
    /// Empty until the first is kept (`build(_:at:)`).
    private var built: [TaskRecord?] = []
    /// The tasks found up to date with every file's stamp standing: their fingerprint, its
    /// value and their record are exactly the state's (each part was compared with it), so they
    /// are read from the state when asked rather than held as text (four 64-character strings
    /// a task: 9 MB of a 20,000-task no-op, which asks for few of them).
    private var asStored: [Bool]
    /// The files hashed in this run, for every task's digests.
    private let hashedInRun = HashedInRun()
    private var failure: TaskStatesError?
    /// Successes whose files were racy when hashed, recorded once they have settled.
    private var settling = SettlingStates()
    /// Each task's definition and env digests, taken before the run (they depend on the plan
    /// alone), on both cores for a large plan.
    private let definitions: DefinitionDigests
    /// Each tracked task's input and output files with their statuses, taken before the run on
    /// every core for a large plan (`FilesBeforeRun`); trusted until a task runs.
    private var filesBeforeRun: FilesBeforeRun?
    /// Whether each task was found up to date as its state kept it, before the run
    /// (`keptAsStoredBeforeRun`); empty without `filesBeforeRun`. Trusted until a task runs.
    private(set) var keptBeforeRun: [Bool] = []
    /// No task has run yet: what was found before the run still stands.
    private var nothingHasRun = true
    /// Under `run --only`: each task with a need taken as done, by plan index, with its needs as
    /// a whole run has them (`NeedOfOnly`), so that its fingerprint is the one a whole run takes;
    /// nil for any other run.
    private let needsUnderOnly: [Int: [NeedOfOnly]]?
    /// The secret values of the tasks that took one (`PlannedTask.secretValues`), by id, once a
    /// success is kept (`kept(_:)`).
    private var secretsByID: [String: [String]]?
    /// Made by `stopChecks()` (Ctrl-C): walks and hashes give up, and what they found is not kept.
    private let stop: SetOnceFlag
    /// Hashes the files of the tasks that succeeded off the engine's loop
    /// (`taskSucceeded(_:recorded:)`), several tasks at once: a small task's few bytes are not
    /// held up behind a large output's gigabytes.
    private let successHashing = DispatchQueue(label: "flowrun.success-hashing", attributes: .concurrent)
    /// The successes queued on `successHashing`, by task.
    private var hashingNext: [Int: SucceededTask] = [:]
    /// The checks before a task starts queued on `successHashing`, by task (`check(_:decided:)`).
    private var pendingChecks: [Int: PendingCheck] = [:]

    /// - Parameters:
    ///   - force: run every task (`--force`); successes are still recorded.
    ///   - definitions: the tasks' definition digests, when kept with the compiled plan; taken
    ///     here otherwise.
    ///   - fileSystem: the disk; by default the real one, whose walks and hashes `stopChecks()` cuts short.
    package init(
        plan: Plan, states: TaskStates, force: Bool, fileSystem: (any FileSystem)? = nil, definitions: DefinitionDigests? = nil
    ) {
        self.plan = plan
        self.states = states
        self.force = force
        let stop = SetOnceFlag()
        self.stop = stop
        self.fileSystem = fileSystem ?? LocalFileSystem(stop: stop)
        settlingFileSystem = fileSystem ?? LocalFileSystem()
        current = FingerprintValues(count: plan.tasks.count)
        needsUnderOnly = NeedOfOnly.needs(in: plan)
        asStored = [Bool](repeating: false, count: plan.tasks.count)
        if let definitions, definitions.count == plan.tasks.count {
            self.definitions = definitions
        } else {
            self.definitions = DefinitionDigests.of(plan.tasks)
        }
        if !force, !states.isEmpty { filesBeforeRun = FilesBeforeRun(plan.tasks, fileSystem: self.fileSystem) }
        if let filesBeforeRun {
            let (kept, everyTrackedTask) = keptAsStoredBeforeRun(files: filesBeforeRun)
            keptBeforeRun = kept
            // The statuses serve only the tasks not found so (a no-op has none): let go of.
            if everyTrackedTask { self.filesBeforeRun = nil }
        }
    }

    /// Each task's definition and env digests, for the compiled plan to keep.
    package var definitionDigests: DefinitionDigests { definitions }

    /// Whether any task of the workflow has a recorded success.
    package var hasHistory: Bool { lock.withLock { !states.isEmpty } }

    /// The first write to the state that failed, if one did: later runs may then run tasks again.
    package var writeFailure: TaskStatesError? { lock.withLock { failure } }

    package func skipReason(for index: Int) -> String? {
        guard case .now(let reason) = check(index, decided: nil) else { preconditionFailure("decided now") }
        return reason
    }

    /// The check before a task starts, finished off the loop when a file's stamp does not stand:
    /// its hash (a large input changed since the last success) would hold up the other tasks'
    /// ends and starts, and a Ctrl-C.
    package func check(_ index: Int, decided: @escaping @Sendable (String?) -> Void) -> CheckAnswer {
        check(index, decided: .some(decided))
    }

    private func check(_ index: Int, decided: (@Sendable (String?) -> Void)?) -> CheckAnswer {
        // The fields read in place (`TaskFiles`): a copy of the whole task, which passing
        // `tasks[index]` makes, retains and releases each of its fields, per task.
        let answer = lock.withLock {
            plan.tasks.withUnsafeBufferPointer { tasks in
                check(TaskFiles(in: tasks, at: index), id: tasks[index].spec.id, needs: tasks[index].needs, at: index, later: decided != nil)
            }
        }
        guard answer == .later, let decided else { return answer }
        successHashing.async { [self] in
            // Taken here, not captured: what a check holds of a task is not `Sendable`.
            guard let pending = lock.withLock({ pendingChecks.removeValue(forKey: index) }) else { return }
            let files = examine(pending)
            decided(lock.withLock { conclude(pending, files) })
        }
        return .later
    }

    /// `check(_:decided:)` of the task at `index`, given the fields it needs (`task`: its files);
    /// `later`: a check whose files must be hashed is left pending (`pendingChecks`) for the
    /// hashing queue, and answers `.later`.
    private func check(_ task: TaskFiles, id: TaskID, needs: [Int], at index: Int, later: Bool) -> CheckAnswer {
        if !force, nothingHasRun, !keptBeforeRun.isEmpty, keptBeforeRun[index], !stop.isSet {
            asStored[index] = true
            return .now(Self.reason)
        }
        let needLines = needValues(needs, at: index)
        let fingerprint = TaskFingerprint.of(definitions[index], inputs: TaskFingerprint.noInputs, needValues: needLines)
        guard TaskDefinition.isTracked(task) else {
            remember(fingerprint, of: index)
            // It runs, and may change any file.
            filesBeforeRun = nil
            nothingHasRun = false
            return .now(nil)
        }
        // Inputs are looked at only when all else matches the record. A task that runs anyway
        // has them hashed at its success, so that a large input it was never run on (a new
        // task, a changed command) does not hold up its start, its timeout or a Ctrl-C.
        var digests = FileDigests(known: [:], fileSystem: fileSystem, run: hashedInRun)
        if !force, !hasNeedWithoutLine(needLines, at: index), let stored = states.stored(at: index, id: id),
            stored.part(.definition, is: fingerprint.definition),
            stored.part(.environment, is: fingerprint.environment), stored.part(.needs, is: fingerprint.needs)
        {
            let found = filesBeforeRun?.files(of: index)
            let inputs =
                found?.inputs
                ?? digests.statuses(
                    ofPatterns: TaskDefinition.inputs(of: task), leavingOut: TaskDefinition.ownOutputs(of: task),
                    singleFiles: TaskDefinition.singleFileInputs(of: task))[...]
            var outputs = found?.outputs
            if stored.stands(for: inputs, outputs: false) {
                outputs = outputs ?? digests.statuses(ofPatterns: TaskDefinition.outputs(of: task), areOutputs: true)[...]
            }
            let pending = PendingCheck(
                index: index, id: id, task: task, fingerprint: fingerprint, stored: stored, inputs: Array(inputs), outputs: outputs.map(Array.init))
            // A file whose stamp does not stand is hashed: off the loop when the engine can wait.
            // Not when there is none to read (`readsNothing`): decided here, the task starts
            // without two hops between threads (a download whose file was removed).
            if later, outputs.map({ !stored.stands(for: $0, outputs: true) }) ?? true, !Self.readsNothing(task, outputs: outputs) {
                pendingChecks[index] = pending
                return .later
            }
            return .now(conclude(pending, examine(pending, digests: &digests)))
        }
        inputsAtSuccess.insert(index)
        // Taken before the task starts: an input it changes makes it run again next time.
        let atStart = InputsAtStart(of: task, digests: &digests)
        return .now(runs(index, id: id, fingerprint: fingerprint, atStart: atStart))
    }

    /// Whether `examine` would read no file of the task: it has no inputs (nothing to hash or
    /// walk again for `InputsAtStart`), and no output of it is there to hash (`outputs`: each
    /// file its patterns name, as found).
    private static func readsNothing(_ task: TaskFiles, outputs: ArraySlice<FoundFile>?) -> Bool {
        guard let outputs, outputs.allSatisfy({ $0.status == nil }) else { return false }
        return TaskDefinition.hasNoInputs(task)
    }

    /// Hashes what a check needs of the task's files whose stamps do not stand: its inputs, and
    /// its outputs if all else matches the record. Called on the loop, or without `lock` on the
    /// hashing queue: it reads only what does not change in a run, and the files hashed in it.
    private func examine(_ pending: PendingCheck) -> CheckedFiles {
        var digests = FileDigests(known: [:], fileSystem: fileSystem, run: hashedInRun)
        return examine(pending, digests: &digests)
    }

    private func examine(_ pending: PendingCheck, digests: inout FileDigests) -> CheckedFiles {
        let task = pending.task
        let inputs = StampedCheck.files(
            TaskDefinition.inputs(of: task), found: pending.inputs[...], kept: pending.stored, outputs: false, digests: &digests)
        var fingerprint = pending.fingerprint
        fingerprint.inputs = inputs.digest
        var outputs: StampedCheck.Result?
        let reason = Self.reasonToRun(recorded: pending.stored, fingerprint: fingerprint) {
            let result = StampedCheck.files(
                TaskDefinition.outputs(of: task), found: pending.outputs?[...], kept: pending.stored, outputs: true, digests: &digests)
            outputs = result
            return (result.digest, result.missing)
        }
        guard !inputs.missing.isEmpty || reason != nil || outputs == nil || stop.isSet else {
            return CheckedFiles(fingerprint: fingerprint, inputs: inputs, outputs: outputs, atStart: nil)
        }
        // Taken before the task starts, after its inputs are hashed: an input it changes makes
        // it run again next time.
        let atStart = InputsAtStart(of: task, digests: &digests)
        return CheckedFiles(fingerprint: fingerprint, inputs: inputs, outputs: outputs, atStart: atStart)
    }

    /// Decides on a checked task from what `examine` found: up to date (its new stamps kept),
    /// or it runs. Called with `lock` held.
    private func conclude(_ pending: PendingCheck, _ files: CheckedFiles) -> String? {
        let (index, id, stored, fingerprint, inputs) = (pending.index, pending.id, pending.stored, files.fingerprint, files.inputs)
        // Not from walks or hashes a cancel cut short (`stopChecks()`).
        guard let atStart = files.atStart else {
            let outputs = files.outputs!
            guard inputs.restamped != nil || outputs.restamped != nil else {
                asStored[index] = true
                return Self.reason
            }
            let record = TaskRecord(fingerprint: fingerprint, outputs: outputs.digest)
            build(record, at: index)
            // Its four parts are those kept: so is their digest, not hashed again.
            current.remember(fingerprint, of: index, value: stored.hex(.value))
            // Files hashed again with the same contents (touched): their new stamps are
            // kept, so that they are not hashed next time.
            states.refresh(
                kept(
                    TaskState(
                        id: id, record: record, inputs: inputs.restamped ?? stored.files(outputs: false),
                        outputs: outputs.restamped ?? stored.files(outputs: true))))
            return Self.reason
        }
        checkedInputs[index] = inputs.restamped ?? stored.files(outputs: false)
        return runs(index, id: id, fingerprint: fingerprint, atStart: atStart)
    }

    /// A checked task runs: its fingerprint as it starts (with its inputs' digest when they were
    /// taken) and its inputs then are kept for its success, and its old state is forgotten.
    /// Called with `lock` held.
    private func runs(_ index: Int, id: TaskID, fingerprint: TaskFingerprint, atStart: InputsAtStart) -> String? {
        remember(fingerprint, of: index)
        // It may change any file: from now on every check stats again.
        filesBeforeRun = nil
        nothingHasRun = false
        // Ctrl-C cut a walk or a hash short: nothing found is kept and the state is left as it
        // was (the engine does not start the task, or only as cleanup, then not recorded).
        guard !stop.isSet else {
            checkedInputs[index] = nil
            return nil
        }
        inputsAtStart[index] = atStart
        note { () throws(TaskStatesError) in try states.forget(id, at: index) }
        return nil
    }

    /// The no-op's path, taken before the run for every tracked task in plan order (the state
    /// file's order: its pages are read once, in order, and let go of behind, rather than all
    /// held while the engine asks for the tasks in its own order): whether each task is up to
    /// date with every part of its record and every file's stamp as its state kept them, told
    /// from raw digests and the statuses taken before the run (`filesBeforeRun`), with no text
    /// made. It is what the whole check finds then (the same parts compared, the same stamps
    /// standing, no pattern naming no file); a task not found so takes the whole check when the
    /// engine asks, which says why it runs or keeps new stamps, and so do its dependents.
    /// Also says whether every tracked task was found so.
    private func keptAsStoredBeforeRun(files: FilesBeforeRun) -> (kept: [Bool], everyTrackedTask: Bool) {
        let size = TaskStateBytes.digestSize
        var kept = [Bool](repeating: false, count: plan.tasks.count)
        // The value and outputs' digest of each task found so, raw (its line as a need,
        // `needLine(of:)`): its dependents' needs' digest is taken from them, not from the
        // tasks' bytes in the file, read again out of order.
        var values = [UInt8](repeating: 0, count: plan.tasks.count * 2 * size)
        var readSinceRelease = 0
        var everyTrackedTask = true
        plan.tasks.withUnsafeBufferPointer { tasks in
            for index in tasks.indices {
                let task = TaskFiles(in: tasks, at: index)
                guard TaskDefinition.isTracked(task) else { continue }
                guard let stored = states.stored(at: index, id: tasks[index].spec.id) else {
                    everyTrackedTask = false
                    continue
                }
                if isKeptAsStored(task, stored: stored, needs: tasks[index].needs, at: index, files: files, kept: kept, values: values) {
                    kept[index] = true
                    values.withUnsafeMutableBytes {
                        let line = $0.baseAddress!.advanced(by: index * 2 * size)
                        line.copyMemory(from: stored.digest(.value).baseAddress!, byteCount: size)
                        line.advanced(by: size).copyMemory(from: stored.digest(.outputs).baseAddress!, byteCount: size)
                    }
                } else {
                    everyTrackedTask = false
                }
                readSinceRelease += stored.bytes.count
                if readSinceRelease >= TaskStates.releasePiece {
                    readSinceRelease = 0
                    states.releasePages()
                }
            }
        }
        states.releasePages()
        return (kept, everyTrackedTask)
    }

    /// Whether the task at `index` is up to date as `stored` kept it (`keptAsStoredBeforeRun`),
    /// given which tasks before it were found so (`kept`) and their values (`values`).
    private func isKeptAsStored(
        _ task: TaskFiles, stored: StoredTask, needs: [Int], at index: Int, files: FilesBeforeRun, kept: [Bool], values: [UInt8]
    ) -> Bool {
        guard definitions.areKept(in: stored, at: index), needsAreKept(needs, at: index, in: stored, kept: kept, values: values),
            let found = files.files(of: index), stored.stands(for: found.inputs, outputs: false),
            stored.stands(for: found.outputs, outputs: true)
        else { return false }
        return StampedCheck.missing(TaskDefinition.inputs(of: task), found: found.inputs).isEmpty
            && StampedCheck.missing(TaskDefinition.outputs(of: task), found: found.outputs).isEmpty && !stop.isSet
    }

    /// Whether the needs' digest `stored` kept is the one of `needs`' kept values
    /// (`TaskFingerprint.needsDigest` over their text, fed to the hasher without making it);
    /// false if a need was not found as its state kept it. Under `run --only`, a task with a
    /// need taken as done takes its needs as a whole run has them (`needValues(_:at:)`): a need
    /// taken as done gives the line its state kept while each of its outputs' stamps stands
    /// (what `keptValue(ofNeedTakenAsDone:)` finds then, without hashing); one whose stamp
    /// does not is left to the whole check.
    private func needsAreKept(_ needs: [Int], at index: Int, in stored: StoredTask, kept: [Bool], values: [UInt8]) -> Bool {
        let whole = needsUnderOnly?[index]
        let size = TaskStateBytes.digestSize
        let count = whole?.count ?? needs.count
        // Each need's line raw (value, then outputs' digest), sorted as `needsDigest` sorts
        // their hex text: hex keeps the order of the bytes.
        var lines = [UInt8](repeating: 0, count: count * 2 * size)
        var allKept = true
        lines.withUnsafeMutableBytes { lines in
            values.withUnsafeBytes { values in
                for position in 0..<count where allKept {
                    let line = lines.baseAddress!.advanced(by: position * 2 * size)
                    let need: Int
                    switch whole?[position] {
                    case .takenAsDone(let id)?:
                        guard let done = states.stored(at: Int.max, id: id), outputsStand(of: done) else {
                            allKept = false
                            continue
                        }
                        line.copyMemory(from: done.digest(.value).baseAddress!, byteCount: size)
                        line.advanced(by: size).copyMemory(from: done.digest(.outputs).baseAddress!, byteCount: size)
                        continue
                    case .planned(let planned)?: need = planned
                    case nil: need = needs[position]
                    }
                    guard need < kept.count, kept[need] else {
                        allKept = false
                        continue
                    }
                    line.copyMemory(from: values.baseAddress!.advanced(by: need * 2 * size), byteCount: 2 * size)
                }
            }
        }
        guard allKept else { return false }
        var order = Array(0..<count)
        if count > 1 {
            lines.withUnsafeBytes { lines in
                order.sort { memcmp(lines.baseAddress! + $0 * 2 * size, lines.baseAddress! + $1 * 2 * size, 2 * size) < 0 }
            }
        }
        var hasher = SHA256()
        lines.withUnsafeBytes { lines in
            TaskFingerprint.updateNeeds(&hasher, count: count) { position, hasher in
                let line = order[position] * 2 * size
                StoredTask.update(&hasher, withHexOf: UnsafeRawBufferPointer(rebasing: lines[line..<(line + size)]))
                StoredTask.update(&hasher, withHexOf: UnsafeRawBufferPointer(rebasing: lines[(line + size)..<(line + 2 * size)]))
            }
        }
        return hasher.finalize().withUnsafeBytes { stored.part(.needs, isRaw: $0) }
    }

    /// Whether each output file the state kept of a need `--only` takes as done is there with
    /// the stamp it was hashed at, which stands (`FileRecord.stands(for:)`); a path kept hidden
    /// (`HiddenPath`) cannot be looked at.
    private func outputsStand(of done: StoredTask) -> Bool {
        done.files(outputs: true).allSatisfy { file in
            guard !HiddenPath.isHidden(file.path), let status = fileSystem.status(of: file.path) else { return false }
            return file.record.stands(for: status)
        }
    }

    /// Cuts the walks and hashes under way short, and those to come (a cancelled run): a task
    /// whose check they were is not found up to date, and the state keeps what it had of it.
    package func stopChecks() {
        stop.set()
    }

    package func taskSucceeded(_ index: Int) {
        guard let success = lock.withLock({ takeSuccess(index) }) else {
            lock.withLock { recordSettled() }
            return
        }
        let hashed = hash(success)
        lock.withLock { record(hashed) }
    }

    /// The success of a task that ran, whose files are hashed on `successHashing`, off the
    /// engine's loop: a multi-GB output no longer holds up the other tasks' ends, starts and
    /// events. `recorded` is called from there once its state is kept (or found not to be);
    /// false if there was nothing to hash (an untracked task), and `recorded` is not called.
    /// One whose every file the action hashed as it wrote it (`readsNoFile`) is recorded here,
    /// also returning false: a hop to the hashing queue and back to the loop would cost more than
    /// its stats (each of 200 downloads waited for two thread wake-ups before its slot was free).
    package func taskSucceeded(_ index: Int, recorded: @escaping @Sendable () -> Void) -> Bool {
        let (success, queued): (SucceededTask?, Bool) = lock.withLock {
            guard let success = takeSuccess(index) else {
                recordSettled()
                return (nil, false)
            }
            if readsNoFile(success) { return (success, false) }
            hashingNext[index] = success
            return (nil, true)
        }
        if let success {
            let hashed = hash(success)
            lock.withLock { record(hashed) }
        }
        guard queued else { return false }
        successHashing.async { [self] in
            // Taken here, not captured: what a check holds of a task is not `Sendable`.
            if let success = lock.withLock({ hashingNext.removeValue(forKey: index) }) {
                let hashed = hash(success)
                lock.withLock { record(hashed) }
            }
            recorded()
        }
        return true
    }

    /// Whether hashing `success` reads no file: its task has no inputs (nothing to walk or hash
    /// again), and each of its outputs names one regular file whose digest its action noted as
    /// it wrote it (`FileSystem.hasStreamedDigest`: a download's `to`), so only stats are left.
    /// Called with `lock` held.
    private func readsNoFile(_ success: SucceededTask) -> Bool {
        plan.tasks.withUnsafeBufferPointer { tasks in
            let task = TaskFiles(in: tasks, at: success.index)
            guard TaskDefinition.hasNoInputs(task) else { return false }
            return TaskDefinition.outputs(of: task).allSatisfy { output in
                guard !PathGlob.isPattern(output), let status = fileSystem.regularFileStatus(of: output) else { return false }
                return fileSystem.hasStreamedDigest(for: status)
            }
        }
    }

    /// Returns once the successes handed to `successHashing` so far are recorded.
    package func waitForSuccessHashing() {
        successHashing.sync(flags: .barrier) {}
    }

    /// What a task that succeeded left to hash: its fingerprint as it started, and what was
    /// taken of its inputs then. Nil for a task that is not tracked. Called with `lock` held.
    private func takeSuccess(_ index: Int) -> SucceededTask? {
        let inputFiles = checkedInputs.removeValue(forKey: index) ?? []
        let atStart = inputsAtStart.removeValue(forKey: index)
        let hashInputsNow = inputsAtSuccess.remove(index) != nil
        guard TaskDefinition.isTracked(plan.tasks[index]), let fingerprint = current[index] else { return nil }
        return SucceededTask(index: index, fingerprint: fingerprint, inputFiles: inputFiles, atStart: atStart, hashInputsNow: hashInputsNow)
    }

    /// Hashes what `success` left: its inputs (when they were not taken as it started) and its
    /// outputs. Called without `lock`: it reads only what does not change in a run, and the
    /// files hashed in it (`hashedInRun`, which has a lock of its own).
    private func hash(_ success: SucceededTask) -> HashedSuccess {
        let task = plan.tasks[success.index]
        var hashed = HashedSuccess(index: success.index)
        var digests = FileDigests(known: [:], fileSystem: fileSystem, run: hashedInRun)
        // The result stands, but what it was made from is gone: not up to date next time.
        guard let found = success.atStart?.unchangedFiles(digests: &digests) else { return hashed }
        var fingerprint = success.fingerprint
        var inputFiles = success.inputFiles
        if success.hashInputsNow {
            // As found unchanged since the start (the same patterns, leaving out the same outputs).
            let inputs = digests.digest(of: found, patterns: TaskDefinition.inputs(of: task))
            fingerprint.inputs = inputs.digest
            inputFiles = inputs.files
            hashed.fingerprint = fingerprint
        }
        let patterns = TaskDefinition.outputs(of: task)
        let outputs = digests.digest(of: digests.statuses(ofPatterns: patterns, areOutputs: true), patterns: patterns)
        // An output the task did not make: it runs again next time, as make would. Nor is a
        // success recorded from walks or hashes that Ctrl-C cut short.
        guard outputs.missing.isEmpty, !stop.isSet else { return hashed }
        let record = TaskRecord(fingerprint: fingerprint, outputs: outputs.digest)
        hashed.state = TaskState(id: task.id, record: record, inputs: inputFiles, outputs: outputs.files)
        hashed.moment = digests.moment
        return hashed
    }

    /// Keeps what `hash(_:)` found. Called with `lock` held.
    private func record(_ hashed: HashedSuccess) {
        // Whatever this task leaves, the successes held before it may have settled by now.
        defer { recordSettled() }
        if let fingerprint = hashed.fingerprint { remember(fingerprint, of: hashed.index) }
        guard let state = hashed.state else { return }
        build(state.record, at: hashed.index)
        if settling.hold(state, of: hashed.index, at: hashed.moment) {
            recordWhenSettled()
        } else {
            recordSuccess(state, at: hashed.index)
        }
    }

    /// Keeps a success in the state, with its fingerprint's whole value from this check's table
    /// (`current`), where the task's resume key and its dependents' lines take it too: hashed
    /// once a task, not again for the state. Called with `lock` held.
    private func recordSuccess(_ state: TaskState, at index: Int) {
        let value = current[index] == state.record.fingerprint ? current.value(of: index) : nil
        note { () throws(TaskStatesError) in try states.recordSuccess(kept(state), value: value) }
    }

    /// A success held until its files settle is recorded once they have, even when no other task
    /// ends meanwhile: it waited for the next end, so a flowrun killed during a long task lost
    /// the successes before it, and the next run redid them and their dependents (the journal
    /// keeps each success as it happens). Called with `lock` held.
    private func recordWhenSettled() {
        guard let last = settling.lastSettling else { return }
        let wait = min(max(last - fileSystem.nowNanoseconds, 0), SettlingStates.longestHold) + 2_000_000
        successHashing.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { [self] in
            lock.withLock { recordSettled() }
        }
    }

    /// Records the successes held (`settling`) whose files have settled by now; with `waiting`,
    /// all of them, once the clock has passed the last (a few milliseconds at most).
    private func recordSettled(waiting: Bool = false) {
        guard let next = settling.firstSettling else { return }
        if waiting, let last = settling.lastSettling {
            fileSystem.waitForClock(toPass: last)
        } else if next >= fileSystem.nowNanoseconds {
            return
        }
        var digests = FileDigests(known: [:], fileSystem: settlingFileSystem, run: hashedInRun)
        for (index, state) in settling.takeSettled(digests: &digests) {
            // nil: a file changed after it was hashed; the task runs again next time.
            if let state { recordSuccess(state, at: index) }
        }
    }

    /// The fingerprint of the task at `index` in this run, once it was checked (`--resume` records it).
    package func fingerprint(at index: Int) -> TaskFingerprint? {
        lock.withLock { asStored[index] ? storedTask(at: index)?.record.fingerprint : current[index] }
    }

    /// The whole value of the fingerprint of the task at `index` in this run, once it was checked.
    package func value(at index: Int) -> String? {
        lock.withLock { value(of: index) }
    }

    /// What the task at `index` left in this run, once it succeeded or was found up to date:
    /// its fingerprint and its outputs' digest (`--resume` records them); nil if it was not
    /// recorded as built.
    package func builtRecord(at index: Int) -> TaskRecord? {
        lock.withLock { asStored[index] ? storedTask(at: index)?.record : built.isEmpty ? nil : built[index] }
    }

    /// `builtRecord(at:)?.resumeKey`, with the fingerprint's whole value taken from this check's
    /// table when it holds that fingerprint's (a dependent's start or the state took it): one
    /// SHA-256 of the four parts fewer for each tracked task the record keeps a key of.
    package func builtResumeKey(at index: Int) -> String? {
        lock.withLock {
            if asStored[index] { return storedTask(at: index)?.record.resumeKey }
            guard !built.isEmpty, let record = built[index] else { return nil }
            let value = current[index] == record.fingerprint ? current.value(of: index) : nil
            return TaskRecord.resumeKey(value: value ?? record.fingerprint.value, outputs: record.outputs)
        }
    }

    /// Keeps what the task at `index` left; `built` is made at the first (a no-op makes none).
    private func build(_ record: TaskRecord, at index: Int) {
        if built.isEmpty { built = [TaskRecord?](repeating: nil, count: plan.tasks.count) }
        built[index] = record
    }

    /// Writes the state anew if the run changed it; call once the run has ended. Waits for the
    /// successes still being hashed, if any (an engine's run has none left: it ends after them).
    package func finish() {
        waitForSuccessHashing()
        lock.withLock {
            recordSettled(waiting: true)
            // The ids read in place: `plan.tasks.map(\.id)` would copy each whole task.
            let ids = plan.tasks.withUnsafeBufferPointer { tasks in tasks.indices.map { tasks[$0].spec.id } }
            note { () throws(TaskStatesError) in try states.compact(plan: ids) }
        }
    }

    private func remember(_ fingerprint: TaskFingerprint, of task: Int) {
        current.remember(fingerprint, of: task)
    }

    /// The lines (`needLine(of:preview:)`) of the needs of the task at `index` (`needs`, its
    /// needs in the plan), as its fingerprint takes them. Under `run --only`, a need taken as
    /// done gives the line the state
    /// kept at its last success: a whole run that finds it up to date gives the same, and one
    /// that runs it (it changed) gives another, so the task runs again then, and only then. A
    /// need never recorded (made elsewhere, or untracked) gives none: the task runs again.
    private func needValues(_ needs: [Int], at index: Int, preview: Bool = false) -> [String?] {
        guard let whole = needsUnderOnly?[index] else { return needs.map { needLine(of: $0, preview: preview) } }
        return whole.map { need in
            switch need {
            case .planned(let position): needLine(of: position, preview: preview)
            case .takenAsDone(let id): keptValue(ofNeedTakenAsDone: id)
            }
        }
    }

    /// Whether, under `run --only`, a need of the task at `index` taken as done gives no line
    /// (`keptValue(ofNeedTakenAsDone:)`: a group or an untracked task, which keep no record, or
    /// one whose outputs changed): the task runs, as make remakes a target whose prerequisite
    /// is phony. Its "none" would otherwise match the record a run made the same way left, and
    /// keep a task made from a need's older contents.
    private func hasNeedWithoutLine(_ lines: [String?], at index: Int) -> Bool {
        needsUnderOnly?[index] != nil && lines.contains(nil)
    }

    /// What a need gives its dependents' fingerprints: its fingerprint's value and, for a task
    /// that tracks files, the digest of the outputs it left. A need made again with other
    /// contents (it read a file it does not declare, or the clock) makes its dependents run
    /// again, as a remade prerequisite does in make; made again with the same contents, it does
    /// not. A tracked need that left no record in this run (it failed, or did not make an
    /// output) gives `unrecordedOutputs`, which no record matches. `preview` (`--dry-run`)
    /// takes the outputs as the state kept them, as it takes the needs as they are now.
    private func needLine(of task: Int, preview: Bool) -> String? {
        guard let value = value(of: task) else { return nil }
        guard plan.tasks.withUnsafeBufferPointer({ TaskDefinition.isTracked(TaskFiles(in: $0, at: task)) }) else { return value }
        return value + (outputs(of: task, preview: preview) ?? unrecordedOutputs)
    }

    /// The digest of the outputs the task at `index` left in this run (kept as up to date, or
    /// recorded at its success), or with `preview` as the state kept them; nil for none.
    private func outputs(of index: Int, preview: Bool) -> String? {
        let outputs = asStored[index] ? storedTask(at: index)?.hex(.outputs) : built.isEmpty ? nil : built[index]?.outputs
        return outputs ?? (preview ? storedTask(at: index)?.hex(.outputs) : nil)
    }

    /// `outputs(of:preview:)` of the task at `index`, for `ResumeCheck`'s fingerprints.
    package func outputsDigest(at index: Int, preview: Bool) -> String? {
        lock.withLock { outputs(of: index, preview: preview) }
    }

    /// The outputs' part of the line of a tracked need without a record in this run: not a
    /// digest, and another for each check, so that no later record matches it. A constant text
    /// did match: a need that rewrites its own input (`inputs` and `outputs` naming one file)
    /// runs every time and is unrecorded every time, and its dependents, recorded with that same
    /// text, stayed up to date on contents it had since changed.
    private let unrecordedOutputs = UpToDateCheck.unrecordedMarker()

    /// A new `unrecordedOutputs` text.
    package static func unrecordedMarker() -> String { "unrecorded " + UUID().uuidString }

    /// `keptValue(ofNeedTakenAsDone:)`, for `ResumeCheck`'s fingerprints under `run --only`.
    package func keptLine(ofNeedTakenAsDone id: TaskID) -> String? {
        lock.withLock { keptValue(ofNeedTakenAsDone: id) }
    }

    /// The line (`needLine(of:preview:)`: value and outputs' digest) the state kept at the last
    /// success of `id`, a need `--only` takes as done,
    /// while the output files it kept are still as it left them; nil otherwise. A need whose
    /// output changed without it running (edited, or made by other means) runs in the whole run
    /// with that same value: the task made from the changed file must not be found up to date
    /// then. A path kept hidden (`HiddenPath`) cannot be looked at, and gives nil too.
    private func keptValue(ofNeedTakenAsDone id: TaskID) -> String? {
        guard let stored = states.stored(at: Int.max, id: id) else { return nil }
        let outputs = stored.files(outputs: true)
        var digests = FileDigests(stamped: outputs, fileSystem: fileSystem)
        for file in outputs {
            guard !HiddenPath.isHidden(file.path), let status = fileSystem.status(of: file.path),
                digests.digest(of: file.path, status: status) == file.record.digest
            else { return nil }
        }
        return stored.hex(.value) + stored.hex(.outputs)
    }

    private func value(of task: Int) -> String? {
        asStored[task] ? storedTask(at: task)?.hex(.value) : current.value(of: task)
    }

    /// What the state kept of the task at `index`: read from the file mapped when the run began
    /// (and the journal read then), which this run does not change.
    private func storedTask(at index: Int) -> StoredTask? {
        // The id read in place: the computed `id` of `plan.tasks[index]` copies the whole task.
        states.stored(at: index, id: plan.tasks[index].spec.id)
    }

    /// `state` as the task state file keeps it: each path that holds a secret value its task's
    /// fields took, hidden (`HiddenPath`). Called with `lock` held.
    private func kept(_ state: TaskState) -> TaskState {
        if secretsByID == nil {
            // Made at the first success kept: the tasks that took a secret are few, or none.
            var secrets: [String: [String]] = [:]
            plan.tasks.withUnsafeBufferPointer { tasks in
                for index in tasks.indices where tasks[index].shown != nil { secrets[tasks[index].spec.id] = tasks[index].secretValues }
            }
            secretsByID = secrets
        }
        guard let secrets = secretsByID?[state.id] else { return state }
        return HiddenPath.hiding(secrets, in: state)
    }

    private func note(_ change: () throws(TaskStatesError) -> Void) {
        do { try change() } catch { if failure == nil { failure = error } }
    }

    /// The rule by which a task's work is kept, by this check and by `--resume`: why it must
    /// run, given what it left when it succeeded (`recorded`), its fingerprint now and its
    /// outputs now (their digest and the patterns that name no file, taken only if needed);
    /// nil if it is up to date. The reason names the first missing output; which file changed
    /// is found only for `--dry-run` (`explained(_:of:digests:)`), as a run does not show it.
    package static func reasonToRun(
        recorded: (some RecordedParts)?, fingerprint: TaskFingerprint, outputs: () -> (digest: String, missing: [String])
    ) -> RunReason? {
        guard let recorded else { return RunReason(.neverRan) }
        if !recorded.part(.definition, is: fingerprint.definition) { return RunReason(.changedCommand) }
        if !recorded.part(.environment, is: fingerprint.environment) { return RunReason(.changedEnv) }
        if !recorded.part(.inputs, is: fingerprint.inputs) { return RunReason(.changedInput) }
        if !recorded.part(.needs, is: fingerprint.needs) { return RunReason(.changedNeed) }
        let (outputs, missing) = outputs()
        if let first = missing.first { return RunReason(.missingOutput, path: ReasonPath(path: first, pattern: first)) }
        if !recorded.part(.outputs, is: outputs) { return RunReason(.changedOutput) }
        return nil
    }

    /// `reason` with the first changed input or output file of `task` named, when it can be told.
    static func explained(_ reason: RunReason, of task: PlannedTask, digests: inout FileDigests) -> RunReason {
        var reason = reason
        switch reason.kind {
        case .changedInput:
            reason.path = digests.firstChange(inPatterns: TaskDefinition.inputs(of: task), leavingOut: TaskDefinition.ownOutputs(of: task))
        case .changedOutput: reason.path = digests.firstChange(inPatterns: TaskDefinition.outputs(of: task), areOutputs: true)
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
                // Found up to date before the run, as the whole check below would find it.
                if !keptBeforeRun.isEmpty, keptBeforeRun[index], !stop.isSet {
                    asStored[index] = true
                    reasons.append(nil)
                    continue
                }
                let needLines = needValues(task.needs, at: index, preview: true)
                var fingerprint = TaskFingerprint.of(definitions[index], inputs: TaskFingerprint.noInputs, needValues: needLines)
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
                guard let stored = states.stored(at: index, id: task.id) else {
                    reasons.append(RunReason(.neverRan))
                    continue
                }
                if !stored.part(.definition, is: fingerprint.definition) {
                    reasons.append(RunReason(.changedCommand))
                } else if !stored.part(.environment, is: fingerprint.environment) {
                    reasons.append(RunReason(.changedEnv))
                } else if !stored.part(.needs, is: fingerprint.needs) || hasNeedWithoutLine(needLines, at: index) {
                    reasons.append(RunReason(.changedNeed))
                } else {
                    // What this task last saw of each of its files: which one changed is told from it.
                    var digests = FileDigests(
                        stamped: stored.files(outputs: false) + stored.files(outputs: true), fileSystem: fileSystem, run: hashedInRun)
                    let (inputs, missing) = digests.digest(
                        ofPatterns: TaskDefinition.inputs(of: task), leavingOut: TaskDefinition.ownOutputs(of: task))
                    fingerprint.inputs = inputs
                    remember(fingerprint, of: index)
                    if let first = missing.first {
                        reasons.append(RunReason(.missingInput, path: ReasonPath(path: first, pattern: first)))
                    } else {
                        let reason = Self.reasonToRun(recorded: stored, fingerprint: fingerprint) {
                            digests.digest(ofPatterns: TaskDefinition.outputs(of: task), areOutputs: true)
                        }
                        reasons.append(reason.map { Self.explained($0, of: task, digests: &digests) })
                    }
                }
            }
            return reasons
        }
    }

    /// The resume key of the task's last recorded success (`TaskRecord.resumeKey`), if the
    /// state has one: when it is the one a run resumed recorded, this check's reason is also
    /// why `--resume` runs the task again.
    package func recordedResumeKey(of task: TaskID) -> String? {
        // Found by its id: the caller has no index in this plan's terms.
        lock.withLock { states.stored(at: Int.max, id: task)?.record.resumeKey }
    }
}

/// The parts of a task's record, compared with a task's now (`UpToDateCheck.reasonToRun`):
/// text in memory, or raw digests read in place from the state file.
package protocol RecordedParts {
    func part(_ part: StoredTask.Part, is hex: String) -> Bool
}

extension StoredTask: RecordedParts {}

extension TaskRecord: RecordedParts {
    package func part(_ part: StoredTask.Part, is hex: String) -> Bool {
        switch part {
        case .definition: fingerprint.definition == hex
        case .environment: fingerprint.environment == hex
        case .inputs: fingerprint.inputs == hex
        case .needs: fingerprint.needs == hex
        case .outputs: outputs == hex
        case .value: fingerprint.value == hex
        }
    }
}
