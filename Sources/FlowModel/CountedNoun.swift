/// A count with its noun in the right number, for every line a person reads: `1 task`,
/// `0 tasks`, `3 waves`. Machine-readable output (JSON, events) carries the bare number.
extension BinaryInteger {
    /// `1 entry`, `2 entries`: `plural` defaults to the singular with an `s`.
    package func counted(_ singular: String, plural: String? = nil) -> String {
        self == 1 ? "1 \(singular)" : "\(self) \(plural ?? singular + "s")"
    }
}
