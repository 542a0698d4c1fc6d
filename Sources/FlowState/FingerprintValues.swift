/// Each task's fingerprint by its plan index, and the fingerprint's whole value, taken once when
/// first asked for: by each dependent's fingerprint and by the task's resume key (most tasks are
/// needed by several; a 5,000-task run spent a quarter of its instructions taking them again).
struct FingerprintValues {
    private var fingerprints: [TaskFingerprint?]
    private var values: [String?]

    init(count: Int) {
        fingerprints = [TaskFingerprint?](repeating: nil, count: count)
        values = [String?](repeating: nil, count: count)
    }

    subscript(index: Int) -> TaskFingerprint? { fingerprints[index] }

    /// Keeps the task's fingerprint; `value`, when known already (kept, or just taken), spares
    /// hashing it again.
    mutating func remember(_ fingerprint: TaskFingerprint?, of index: Int, value: String? = nil) {
        fingerprints[index] = fingerprint
        values[index] = value
    }

    mutating func value(of index: Int) -> String? {
        if let value = values[index] { return value }
        let value = fingerprints[index]?.value
        values[index] = value
        return value
    }
}
