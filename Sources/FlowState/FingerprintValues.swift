/// Each task's fingerprint by its plan index, and the fingerprint's whole value, taken once when
/// first asked for: by each dependent's fingerprint and by the task's resume key (most tasks are
/// needed by several; a 5,000-task run spent a quarter of its instructions taking them again).
///
/// The tables are made at the first fingerprint kept: a run whose every task the up-to-date
/// check found as its state kept it (a no-op) keeps none here (1.8 MB at 20,000 tasks).
struct FingerprintValues {
    private let count: Int
    private var fingerprints: [TaskFingerprint?] = []
    private var values: [String?] = []

    init(count: Int) {
        self.count = count
    }

    subscript(index: Int) -> TaskFingerprint? { fingerprints.isEmpty ? nil : fingerprints[index] }

    /// Keeps the task's fingerprint; `value`, when known already (kept, or just taken), spares
    /// hashing it again.
    mutating func remember(_ fingerprint: TaskFingerprint?, of index: Int, value: String? = nil) {
        if fingerprints.isEmpty {
            guard fingerprint != nil || value != nil else { return }
            fingerprints = [TaskFingerprint?](repeating: nil, count: count)
            values = [String?](repeating: nil, count: count)
        }
        fingerprints[index] = fingerprint
        values[index] = value
    }

    mutating func value(of index: Int) -> String? {
        guard !fingerprints.isEmpty else { return nil }
        if let value = values[index] { return value }
        let value = fingerprints[index]?.value
        values[index] = value
        return value
    }
}
