/// Among ready tasks waiting for a slot, a higher priority starts first.
package enum Priority: String, CaseIterable, Sendable, Comparable {
    case veryLow = "very-low"
    case low
    case normal
    case high
    case veryHigh = "very-high"

    /// Larger is more urgent.
    package var rank: Int {
        switch self {
        case .veryLow: 0
        case .low: 1
        case .normal: 2
        case .high: 3
        case .veryHigh: 4
        }
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}
