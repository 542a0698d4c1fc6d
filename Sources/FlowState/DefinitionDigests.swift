import FlowPlanning

/// The digests of each planned task's definition and env (`TaskFingerprint.Definition`), in
/// plan order. They depend on the plan alone, so the compiled plan keeps them (`PlanCache`): a
/// run of an unchanged workflow takes them from there rather than building each task's text and
/// hashing it again (a fifth of a 5,000-task no-op's instructions, issue 23).
///
/// Read back from the plan they stay raw (64 bytes a task) and are spelled out a task at a time
/// when the check asks (`subscript`): a no-op keeps no text of them (2.2 MB at 20,000 tasks).
package struct DefinitionDigests: Sendable {
    private enum Storage: Sendable {
        case text([TaskFingerprint.Definition])
        /// Two raw 32-byte digests a task, the definition's then the env's.
        case raw([UInt8])
    }

    private let storage: Storage
    /// How many tasks' digests.
    let count: Int

    init(_ items: [TaskFingerprint.Definition]) {
        storage = .text(items)
        count = items.count
    }

    /// Each task's, taken now (on every core for a large plan).
    package static func of(_ tasks: [PlannedTask]) -> Self {
        Self(TaskFingerprint.definitions(of: tasks))
    }

    /// The digests of the task at `index`, as text.
    subscript(index: Int) -> TaskFingerprint.Definition {
        switch storage {
        case .text(let items):
            return items[index]
        case .raw(let bytes):
            let size = TaskStateBytes.digestSize
            return bytes.withUnsafeBytes { raw in
                let definition = UnsafeRawBufferPointer(rebasing: raw[(2 * index * size)..<((2 * index + 1) * size)])
                let environment = UnsafeRawBufferPointer(rebasing: raw[((2 * index + 1) * size)..<((2 * index + 2) * size)])
                // Most tasks have no env of their own: they share the one text of its digest.
                let noEnvironment = TaskFingerprint.noEnvironment
                return TaskFingerprint.Definition(
                    definition: FileRecord.hex(definition),
                    environment: StoredTask.digest(environment, is: noEnvironment) ? noEnvironment : FileRecord.hex(environment))
            }
        }
    }

    /// `body` with the raw definition and env digests of the task at `index`; nil when they
    /// are held as text (taken in this run, not read back).
    func withRaw<Result>(at index: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Result) -> Result? {
        guard case .raw(let bytes) = storage else { return nil }
        let size = TaskStateBytes.digestSize
        return bytes.withUnsafeBytes { raw in
            body(
                UnsafeRawBufferPointer(rebasing: raw[(2 * index * size)..<((2 * index + 1) * size)]),
                UnsafeRawBufferPointer(rebasing: raw[((2 * index + 1) * size)..<((2 * index + 2) * size)]))
        }
    }

    /// Every task's, as text.
    var items: [TaskFingerprint.Definition] {
        switch storage {
        case .text(let items): items
        case .raw: (0..<count).map { self[$0] }
        }
    }

    /// Two raw 32-byte digests a task, the definition's then the env's.
    var bytes: [UInt8] {
        switch storage {
        case .raw(let bytes):
            return bytes
        case .text(let items):
            var bytes: [UInt8] = []
            bytes.reserveCapacity(items.count * 2 * TaskStateBytes.digestSize)
            for item in items {
                TaskStateBytes.appendDigest(item.definition, to: &bytes)
                TaskStateBytes.appendDigest(item.environment, to: &bytes)
            }
            return bytes
        }
    }

    /// The digests of `count` tasks in `bytes` (as `bytes` writes them), which must hold exactly those.
    init?(bytes: UnsafeRawBufferPointer, count: Int) {
        guard bytes.count == count * 2 * TaskStateBytes.digestSize else { return nil }
        storage = .raw(Array(bytes))
        self.count = count
    }
}
