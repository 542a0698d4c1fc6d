import FlowPlanning

/// The digests of each planned task's definition and env (`TaskFingerprint.Definition`), in
/// plan order. They depend on the plan alone, so the compiled plan keeps them (`PlanCache`): a
/// run of an unchanged workflow takes them from there rather than building each task's text and
/// hashing it again (a fifth of a 5,000-task no-op's instructions, issue 23).
package struct DefinitionDigests: Sendable {
    let items: [TaskFingerprint.Definition]

    init(_ items: [TaskFingerprint.Definition]) {
        self.items = items
    }

    /// Each task's, taken now (on every core for a large plan).
    package static func of(_ tasks: [PlannedTask]) -> Self {
        Self(TaskFingerprint.definitions(of: tasks))
    }

    /// Two raw 32-byte digests a task, the definition's then the env's.
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(items.count * 2 * TaskStateBytes.digestSize)
        for item in items {
            TaskStateBytes.appendDigest(item.definition, to: &bytes)
            TaskStateBytes.appendDigest(item.environment, to: &bytes)
        }
        return bytes
    }

    /// The digests of `count` tasks in `bytes` (as `bytes` writes them), which must hold exactly those.
    init?(bytes: UnsafeRawBufferPointer, count: Int) {
        let size = 2 * TaskStateBytes.digestSize
        guard bytes.count == count * size else { return nil }
        var items: [TaskFingerprint.Definition] = []
        items.reserveCapacity(count)
        // Most tasks have no env of their own: they share the one text of its digest rather
        // than each holding a copy (a 64-character string is a heap block: 2.2 MB at 20,000).
        let noEnvironment = TaskFingerprint.noEnvironment
        for index in 0..<count {
            let start = index * size
            let environment = UnsafeRawBufferPointer(rebasing: bytes[start + size / 2..<start + size])
            items.append(
                TaskFingerprint.Definition(
                    definition: FileRecord.hex(UnsafeRawBufferPointer(rebasing: bytes[start..<start + size / 2])),
                    environment: StoredTask.digest(environment, is: noEnvironment) ? noEnvironment : FileRecord.hex(environment)))
        }
        self.items = items
    }
}
