extension LiveView {
    /// Above this many tasks, the end summary (with `--summary auto`) lists only the failures
    /// and the slowest: a row per task of a run of thousands would scroll the failures away.
    static let compactSummaryAbove = 50
    /// How many of the slowest tasks a compact summary lists.
    static let slowestListed = 10

    var isCompactSummary: Bool {
        summaryMode == .auto && results.count > Self.compactSummaryAbove
    }

    /// The summary's rows: every task in the order they ended; compact, the failures, allowed ones (and the
    /// tasks cancelled after they started) in that order, then the ten slowest of the others,
    /// slowest first. Tasks cancelled before they started are only counted in the final line.
    var listedResults: [TaskResult] {
        guard isCompactSummary else { return results }
        let failures = results.filter {
            $0.outcome == .failed || $0.outcome == .allowed || $0.outcome == .cancelled && $0.durationMilliseconds != nil
        }
        let failed = Set(failures.map(\.task))
        let slowest = results.filter { !failed.contains($0.task) && $0.durationMilliseconds != nil }
            .sorted { $0.durationMilliseconds ?? 0 > $1.durationMilliseconds ?? 0 }
            .prefix(Self.slowestListed)
        return failures + slowest
    }

    /// The line above a compact table: `1200 tasks: the failures and the 10 slowest (--summary all lists every task)`.
    var compactSummaryNote: String {
        guard isCompactSummary else { return "" }
        return style.dim("\(results.count) tasks: the failures and the \(Self.slowestListed) slowest (--summary all lists every task)") + "\n"
    }
}
