import Crypto
import FlowModel
import FlowPlanning
import Foundation

/// What a task's result depends on: its definition (`TaskDefinition`), its resolved env, the
/// contents of its inputs and the fingerprints of its needs (with, for a need that tracks files,
/// the digest of the outputs it left: `UpToDateCheck`), each as a SHA-256, and one over the four. Kept in parts so that `--dry-run` can say which one changed.
package struct TaskFingerprint: Sendable, Equatable {
    package var definition: String
    package var environment: String
    package var inputs: String
    package var needs: String

    package init(definition: String, environment: String, inputs: String, needs: String) {
        self.definition = definition
        self.environment = environment
        self.inputs = inputs
        self.needs = needs
    }

    /// The whole fingerprint: the SHA-256 of the four parts' texts one after the other, fed to
    /// the hasher as they are rather than joined first.
    package var value: String { Self.hash(definition, environment, inputs, needs) }

    /// The fingerprint of `task` now, given its needs' fingerprints (in `task.needs` order) and
    /// what is known of files. Also says which inputs are missing.
    package static func of(
        _ task: PlannedTask, needs: [TaskFingerprint?], files: [String: FileRecord]
    ) -> (fingerprint: TaskFingerprint, missingInputs: [String], hashed: [(path: String, record: FileRecord)]) {
        var digests = FileDigests(known: files)
        let (inputs, missing) = digests.digest(
            ofPatterns: TaskDefinition.inputs(of: task), leavingOut: TaskDefinition.ownOutputs(of: task),
            singleFiles: TaskDefinition.singleFileInputs(of: task))
        let fingerprint = of(task, inputs: inputs, needs: needs)
        return (fingerprint, missing, digests.fresh)
    }

    /// The inputs' digest of a task without inputs.
    static let noInputs = hash("")

    /// The fingerprint of `task` with its inputs' digest already taken.
    static func of(_ task: PlannedTask, inputs: String, needs: [TaskFingerprint?]) -> TaskFingerprint {
        of(task, inputs: inputs, needValues: needs.map { $0?.value })
    }

    /// The same, given the needs' whole values (nil for a need without a fingerprint).
    static func of(_ task: PlannedTask, inputs: String, needValues: [String?]) -> TaskFingerprint {
        of(definition(of: task), inputs: inputs, needValues: needValues)
    }

    /// The same, with the task's definition and env digests already taken.
    static func of(_ definition: Definition, inputs: String, needValues: [String?]) -> TaskFingerprint {
        TaskFingerprint(
            definition: definition.definition, environment: definition.environment, inputs: inputs,
            needs: needsDigest(needValues))
    }

    /// The digest of the needs' values, each line one need's ("none" for one without), the
    /// lines sorted: the same as hashing them joined, without building the text. Sorted, since
    /// the order `needs:` lists them in is not what the task makes (make remakes nothing when
    /// a rule's prerequisites are listed in another order): `needs: [b, a]` for `[a, b]` kept
    /// the task's fingerprint changed, and it ran again with its dependents.
    static func needsDigest(_ needValues: [String?]) -> String {
        var hasher = SHA256()
        let lines = needValues.count < 2 ? needValues : needValues.sorted { ($0 ?? "none") < ($1 ?? "none") }
        updateNeeds(&hasher, count: lines.count) { index, hasher in update(&hasher, lines[index]) }
        return FileRecord.hex(hasher.finalize())
    }

    /// Feeds `count` needs' lines to `hasher` as `needsDigest` hashes them; `line` feeds the
    /// line of the need at an index (`update(_:_:)` of its value, or the same bytes kept raw).
    static func updateNeeds(_ hasher: inout SHA256, count: Int, line: (Int, inout SHA256) -> Void) {
        for index in 0..<count {
            if index > 0 { update(&hasher, "\n") }
            line(index, &hasher)
        }
    }

    /// Feeds a need's line: its value, or "none" for a need without one.
    static func update(_ hasher: inout SHA256, _ needValue: String?) {
        update(&hasher, needValue ?? "none")
    }

    /// The digests of a task's definition and env, which depend on the plan alone.
    struct Definition: Sendable {
        var definition: String
        var environment: String
    }

    static func definition(of task: PlannedTask) -> Definition {
        Definition(definition: hash(TaskDefinition.text(of: task)), environment: environmentDigest(task.environment))
    }

    /// The digest of a task's env: its `NAME=VALUE` entries with a NUL between them, fed to the
    /// hasher as they are rather than joined first. A task with no env (most, on a graph of
    /// small tasks) takes the one digest of no text, not a hash of its own: this is taken for
    /// every task the record keeps a fingerprint of, on the loop that spawns the next.
    static func environmentDigest(_ environment: [EnvironmentEntry]) -> String {
        guard !environment.isEmpty else { return noEnvironment }
        var hasher = SHA256()
        for (index, entry) in environment.enumerated() {
            if index > 0 { update(&hasher, "\0") }
            update(&hasher, entry.name, "=", entry.value)
        }
        return FileRecord.hex(hasher.finalize())
    }

    /// The env digest of a task without env.
    static let noEnvironment = hash("")

    /// Every task's, taken on every core for a large plan: the up-to-date check of a 20,000-task
    /// workflow spends a good part of its time on them.
    static func definitions(of tasks: [PlannedTask]) -> [Definition] {
        ChunkedWork.gather(tasks.count) { range, add in
            for index in range { add(definition(of: tasks[index])) }
        }.items
    }

    static func hash(_ text: String) -> String {
        var text = text
        return text.withUTF8 { FileRecord.hex(SHA256.hash(data: $0)) }
    }

    /// The SHA-256 of `texts` one after the other, as `hash` of them joined would be.
    static func hash(_ texts: String...) -> String {
        var hasher = SHA256()
        for text in texts { update(&hasher, text) }
        return FileRecord.hex(hasher.finalize())
    }

    /// Feeds `texts`' UTF-8 to `hasher`, one after the other.
    static func update(_ hasher: inout SHA256, _ texts: String...) {
        for text in texts { update(&hasher, text) }
    }

    /// Feeds `text`'s UTF-8 to `hasher`. The variadic forms make an array a call; the record
    /// takes a few of these for every task that ends, on the loop that spawns the next.
    static func update(_ hasher: inout SHA256, _ text: String) {
        var text = text
        text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
    }

    /// `hash(first, second, third)` without the variadic form's array (a resume key).
    static func hash(_ first: String, _ second: String, _ third: String) -> String {
        var hasher = SHA256()
        update(&hasher, first)
        update(&hasher, second)
        update(&hasher, third)
        return FileRecord.hex(hasher.finalize())
    }

    /// `hash` of four texts without the variadic form's array (a fingerprint's whole value).
    static func hash(_ first: String, _ second: String, _ third: String, _ fourth: String) -> String {
        var hasher = SHA256()
        update(&hasher, first)
        update(&hasher, second)
        update(&hasher, third)
        update(&hasher, fourth)
        return FileRecord.hex(hasher.finalize())
    }
}
