/// Why a combine attempt failed, as the task's failure reason.
struct CombineFailure: Error, Equatable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    /// The attempt was stopped (terminate, kill, Ctrl-C) between two blocks.
    static let cancelled = CombineFailure("cancelled")
}
