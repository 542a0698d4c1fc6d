import FlowModel

extension LiveView {
    /// The table printed when the run is over, then the reasons of the failures, then the final line:
    ///
    /// ```
    ///
    /// task   result     duration  attempts
    /// fetch  succeeded      1.3s         2
    /// build  failed         3.1s         1
    /// test   skipped           -         -
    ///
    /// build failed: exited with status 2
    ///
    /// workflow upgrade failed in 4.6s: 1 succeeded, 1 failed, 1 skipped
    /// ```
    ///
    /// Rows come in the order the tasks ended; a run of many tasks lists fewer
    /// (`LiveView+CompactSummary`). Cancelled tasks' and allowed failures' reasons (result
    /// `allowed`: `continue_on_error`) are listed with the failures; a skipped task's reason
    /// names the task it needed, which is already in the table.
    ///
    /// The table fits in `columns`: where the task ids would make it wider, the id column is
    /// narrowed, and a longer id has a line of its own above its cells, rather than every row
    /// wrapping on the terminal.
    func summary(now: Int64, columns: Int = .max) -> String {
        let header = ["task", "result", "duration", "attempts"]
        let listed = listedResults
        let rows = listed.map { result in
            [
                result.task, result.outcome.rawValue,
                result.durationMilliseconds.map { DurationText.string(milliseconds: $0) } ?? "-",
                result.attempts.map { String($0) } ?? "-",
            ]
        }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        let rest = widths.dropFirst().reduce(0) { $0 + 2 + $1 }
        widths[0] = max(header[0].count, min(widths[0], columns - 1 - rest))
        var text = ""
        if !rows.isEmpty {
            text += "\n" + compactSummaryNote + style.bold(line(header, widths: widths)) + "\n"
            for (row, result) in zip(rows, listed) {
                text += line(row, widths: widths, outcome: result.outcome) + "\n"
            }
        }
        if counts.upToDate > 0 { text += "\n" + style.dim(SummaryText.upToDate(counts.upToDate)) + "\n" }
        if counts.doneBefore > 0 { text += "\n" + style.dim(SummaryText.doneBefore(counts.doneBefore, run: resumedRun)) + "\n" }
        let explained = listed.filter { $0.outcome == .failed || $0.outcome == .allowed || $0.outcome == .cancelled }
        if !explained.isEmpty {
            text += "\n"
            for result in explained {
                let label = "\(result.task) \(result.outcome == .allowed ? "allowed failure" : result.outcome.rawValue)"
                text += "\(result.outcome == .failed ? style.red(label) : style.yellow(label)): \(ConsoleText.sanitized(result.reason ?? ""))\n"
                for (stream, line) in tails.lines(of: result.task) {
                    let shown = ConsoleText.sanitized(line)
                    text += style.dim("  \(stream == .stdout ? "|" : "!")") + (shown.isEmpty ? "" : " " + shown) + "\n"
                }
            }
        }
        if !text.isEmpty { text += "\n" }
        text += finalLine(now: now) + "\n"
        return text
    }

    /// The columns padded to `widths`: names to the left, numbers to the right; the result coloured.
    private func line(_ cells: [String], widths: [Int], outcome: TaskResult.Outcome? = nil) -> String {
        let result = Self.rightPadded(cells[1], widths[1])
        let coloured =
            switch outcome {
            case .succeeded: style.green(result)
            case .failed: style.red(result)
            case .allowed, .cancelled: style.yellow(result)
            case .skipped: style.dim(result)
            case nil: result
            }
        // An id wider than its column: on a line of its own, the cells under the column's end.
        let task = cells[0].count > widths[0] ? cells[0] + "\n" + String(repeating: " ", count: widths[0]) : Self.rightPadded(cells[0], widths[0])
        return "\(task)  \(coloured)  \(Self.leftPadded(cells[2], widths[2]))  \(Self.leftPadded(cells[3], widths[3]))"
    }

    /// The workflow's last line, from `workflow.finished`; from the results so far if the run broke off.
    private func finalLine(now: Int64) -> String {
        let status = finish?.status ?? (counts.failed > counts.allowed ? .failed : .cancelled)
        let text = SummaryText.finished(
            workflow: workflow, status: status,
            durationMilliseconds: finish?.durationMilliseconds ?? now - (startedAt ?? now),
            counts: counts)
        switch status {
        case .succeeded: return style.green(text)
        case .failed: return style.red(text)
        case .cancelled: return style.yellow(text)
        }
    }
}
