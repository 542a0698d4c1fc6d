/// The fingerprint's whole value and the resume key of each task whose fingerprint depends on
/// the plan alone, as a run of a workflow that declares no inputs or outputs took them
/// (`ResumeCheck`): such a task's fingerprint is its definition and env digests, no inputs,
/// and its needs' values, which are as plain when the needs are. The compiled plan keeps them
/// (`PlanCache`), so that a later run of the unchanged workflow writes each task's key in its
/// record without the three SHA-256 a task it took (issue 23: "no fingerprint for a workflow
/// that declares no inputs or outputs"). The record's bytes are the same: `--resume` reads the
/// same keys, and its rule is unchanged.
///
/// Two raw 32-byte digests a task, the value then the key; all zero for a task with none (one
/// that did not succeed in that run, or needs one that did not).
package struct PlanFingerprints: Sendable {
    static let entrySize = PlanCache.taskEntrySize

    /// Two raw digests a task (see the type).
    let bytes: [UInt8]
    /// How many tasks' entries.
    let count: Int

    /// From each task's value and key (hex), nil for a task with none.
    init(_ entries: [(value: String, key: String)?]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * Self.entrySize)
        for entry in entries {
            if let entry {
                TaskStateBytes.appendDigest(entry.value, to: &bytes)
                TaskStateBytes.appendDigest(entry.key, to: &bytes)
            } else {
                bytes += repeatElement(0, count: Self.entrySize)
            }
        }
        self.bytes = bytes
        count = entries.count
    }

    /// The entries of `count` tasks in `bytes` (as `bytes` holds them), which must hold exactly those.
    init?(bytes: UnsafeRawBufferPointer, count: Int) {
        guard bytes.count == count * Self.entrySize else { return nil }
        self.bytes = Array(bytes)
        self.count = count
    }

    /// These entries, with `kept`'s where these have none, if these have one `kept` lacks (or
    /// `kept` is nil); nil when they add nothing to `kept` (or are not as many).
    package func filling(_ kept: PlanFingerprints?) -> PlanFingerprints? {
        guard let kept else { return self }
        guard kept.count == count, (0..<count).contains(where: { has($0) && !kept.has($0) }) else { return nil }
        var merged = bytes
        for index in 0..<count where !has(index) && kept.has(index) {
            let entry = (index * Self.entrySize)..<((index + 1) * Self.entrySize)
            merged.replaceSubrange(entry, with: kept.bytes[entry])
        }
        return PlanFingerprints(merged: merged, count: count)
    }

    private init(merged: [UInt8], count: Int) {
        bytes = merged
        self.count = count
    }

    /// Whether every task has an entry: nothing a run could add.
    package var isWhole: Bool { (0..<count).allSatisfy(has) }

    /// Whether the task at `index` has an entry.
    func has(_ index: Int) -> Bool {
        bytes.withUnsafeBytes { raw in raw[(index * Self.entrySize)..<(index * Self.entrySize + TaskStateBytes.digestSize)].contains { $0 != 0 } }
    }

    /// The task's fingerprint value, spelled out; nil when it has none.
    func value(at index: Int) -> String? {
        has(index) ? hex(from: index * Self.entrySize) : nil
    }

    /// The task's resume key, spelled out; nil when it has none.
    func key(at index: Int) -> String? {
        has(index) ? hex(from: index * Self.entrySize + TaskStateBytes.digestSize) : nil
    }

    private func hex(from start: Int) -> String {
        bytes.withUnsafeBytes { raw in FileRecord.hex(UnsafeRawBufferPointer(rebasing: raw[start..<(start + TaskStateBytes.digestSize)])) }
    }
}
