import FlowConsole
import FlowModel
import Glibc

/// The Markdown a run appends to GitHub's job summary (`$GITHUB_STEP_SUMMARY`): its result and
/// duration, the counts, and a table of the failed tasks (allowed failures marked as such) with
/// the last lines of their output.
///
/// GitHub refuses a step's summary over 1 MiB, so the text stays under `limit` whatever the run:
/// failure rows that would pass it are left out, and a line says how many.
package enum JobSummary {
    /// GitHub's limit is 1 MiB for the step; room is left for what earlier commands of the step wrote.
    package static let limit = 1 << 20 - 64 * 1024
    /// How many of a failed task's last output lines the table shows.
    package static let lines = 10
    /// Longer output lines are cut in the table.
    static let maximumLineLength = 200

    /// Appends the summary of `timeline` to GitHub's job summary file at `path`, after what the
    /// step's earlier commands wrote there: a blank line first, so that its heading starts a
    /// block of its own (after a last line left open, a table, or an HTML block, which runs on
    /// to the next blank line), and the rows cut so that the whole file stays under 1 MiB.
    package static func append(_ timeline: RunTimeline, to path: String) throws(WriteFailure) {
        var status = stat()
        let earlier = stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG ? Int(status.st_size) : 0
        let room = min(limit, 1 << 20 - 1024 - earlier)
        try ReportFile.append(separator(after: path, size: earlier) + render(timeline, limit: room), to: path)
    }

    /// What goes between the file's last byte and the summary: nothing in an empty file, else
    /// what ends the last line and leaves one blank line.
    private static func separator(after path: String, size: Int) -> String {
        guard size > 0 else { return "" }
        var tail = [UInt8](repeating: 0, count: 2)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "\n\n" }
        defer { close(descriptor) }
        let count = min(size, 2)
        guard pread(descriptor, &tail, count, off_t(size - count)) == count else { return "\n\n" }
        if count == 2, tail == [0x0A, 0x0A] { return "" }
        return tail[count - 1] == 0x0A ? "\n" : "\n\n"
    }

    package static func render(_ timeline: RunTimeline, limit: Int = Self.limit) -> String {
        let icon =
            switch timeline.result {
            case .succeeded: "✅"
            case .failed: "❌"
            case .cancelled, .interrupted: "⚠️"
            case .running: "⏳"
            }
        var text = "### \(icon) flowrun: \(escaped(timeline.workflow)) \(timeline.result.rawValue)"
        text += timeline.result == .running ? " for " : " in "
        text += "\(DurationText.string(milliseconds: timeline.durationMilliseconds))\n\n"
        if let run = timeline.run { text += "Run <code>\(escaped(run))</code> of <code>\(escaped(timeline.file))</code>. " }
        text += counts(timeline) + "\n"
        let failures = timeline.tasks.filter { $0.result == .failed || $0.result == .allowed }
        guard !failures.isEmpty else { return text }
        let heading = failures.contains { $0.result == .allowed } ? "Failed or allowed-failure task" : "Failed task"
        text += "\n| \(heading) | Reason | Duration | Last lines of output |\n|---|---|---|---|\n"
        var shown = 0
        for task in failures {
            let row = row(for: task)
            // Room kept for the closing note.
            guard text.utf8.count + row.utf8.count + 200 <= limit else { break }
            text += row
            shown += 1
        }
        if shown < failures.count {
            let logs = timeline.run.map { " (<code>flowrun logs \(escaped($0)) TASK</code> shows each)" } ?? ""
            text +=
                "\n\((failures.count - shown).counted("more failed task", plural: "more failed tasks")) left out: GitHub keeps a job summary under 1 MiB\(logs).\n"
        }
        return text
    }

    /// `12 tasks: 9 succeeded, 1 failed, 1 up to date, 1 skipped`: the counts as the run's last
    /// line says them (`SummaryText.counts`), so a resumed run reads `1 done before` in both.
    static func counts(_ timeline: RunTimeline) -> String {
        let counts = timeline.counts
        let finished = counts.succeeded + counts.failed + counts.cancelled + counts.skipped
        var parts = finished > 0 ? [SummaryText.counts(counts)] : []
        let unfinished = timeline.tasks.count - finished
        if unfinished > 0 { parts.append("\(unfinished) not finished") }
        return "\(timeline.tasks.count) task\(timeline.tasks.count == 1 ? "" : "s"): " + (parts.isEmpty ? "none ran" : parts.joined(separator: ", ")) + "."
    }

    private static func row(for task: RunTimeline.Task) -> String {
        let duration = task.busy.map { DurationText.string(milliseconds: $0.end - $0.start) } ?? "-"
        var reason = escaped(task.reason ?? "failed")
        if task.result == .allowed { reason += " (allowed: continue_on_error)" }
        if task.attempts.count > 1 { reason += " after \(task.attempts.count) attempts" }
        let lines = task.tail.suffix(Self.lines).map { line in
            escaped(line.count > maximumLineLength ? String(line.prefix(maximumLineLength)) + "…" : line)
        }
        let output = lines.isEmpty ? "" : "<pre>" + lines.joined(separator: "<br>") + "</pre>"
        return "| <code>\(escaped(task.id))</code> | \(reason) | \(duration) | \(output) |\n"
    }

    /// Text that cannot break out of its table cell or be read as HTML or Markdown.
    ///
    /// GitHub also turns `:x:` into an emoji and `https://...`, `www.`, `a@b.c`, `@name`, `#123`,
    /// `GH-123` and a commit's SHA into links or mentions, in the HTML's text, where an entity is
    /// a plain character again: so an invisible `<wbr>` splits each (after a `:`, `@` or `#` that
    /// is not followed by a space, after `www`, after `GH-`, and every 6 characters of a hex
    /// word of 7 or more with letters and digits), and the text shows as written, in text nodes
    /// no such pattern spans.
    ///
    /// Control characters and terminal escape sequences (a workflow `name: "\x1b[31m"`) are
    /// removed first, through `ConsoleText`, as from the output tails and the JUnit report.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        // By Unicode scalars, each a Character of its own: Markdown reads `|` and `*` as bytes,
        // and a combining mark after one made a Character that matched no case below.
        let characters = ConsoleText.sanitized(text).unicodeScalars.map(Character.init)
        let hexBreaks = breaksInHexWords(characters)
        for (index, character) in characters.enumerated() {
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if character == ".", index >= 3, characters[(index - 3)..<index].map({ $0.lowercased() }).joined() == "www" {
                result += "<wbr>"
            }
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "|": result += "&#124;"
            case "`": result += "&#96;"
            // Markdown's own marks, read even inside the cells' <code> and <pre> (raw HTML whose
            // text is still Markdown): emphasis, links and images, strikethrough, escapes, math.
            case "*": result += "&#42;"
            case "_": result += "&#95;"
            case "[": result += "&#91;"
            case "]": result += "&#93;"
            case "\\": result += "&#92;"
            case "~": result += "&#126;"
            case "$": result += "&#36;"
            case "\n", "\r": result += " "
            case ":", "@", "#":
                result.append(character)
                if let next, !next.isWhitespace { result += "<wbr>" }
            case "-":
                result.append(character)
                if isIssuePrefix(characters, dashAt: index) { result += "<wbr>" }
            default:
                result.append(character)
                if hexBreaks.contains(index) { result += "<wbr>" }
            }
        }
        return result
    }

    /// Whether the `-` at `dash` ends a word `GH` and a digit follows: GitHub's `GH-26` issue link.
    private static func isIssuePrefix(_ characters: [Character], dashAt dash: Int) -> Bool {
        guard dash >= 2, dash + 1 < characters.count, characters[dash + 1].isASCII, characters[dash + 1].isNumber,
            String(characters[(dash - 2)..<dash]).uppercased() == "GH"
        else { return false }
        return dash == 2 || !(characters[dash - 3].isLetter || characters[dash - 3].isNumber || characters[dash - 3] == "_")
    }

    /// The indexes after which a hex word (a run of ASCII letters, digits and `_` that is all hex
    /// digits, 7 or more, with a letter and a digit) is split, every 6 characters: GitHub links a
    /// word of 7 to 40 hex digits as a commit (`a5c3785`), and finds one in each text node. A
    /// word of digits alone (a run id's date, a byte count) is left whole.
    private static func breaksInHexWords(_ characters: [Character]) -> Set<Int> {
        func isWord(_ character: Character) -> Bool { character.isASCII && (character.isLetter || character.isNumber || character == "_") }
        var breaks: Set<Int> = []
        var start = 0
        while start < characters.count {
            guard isWord(characters[start]) else {
                start += 1
                continue
            }
            var end = start
            while end < characters.count, isWord(characters[end]) { end += 1 }
            let word = characters[start..<end]
            if word.count >= 7, word.allSatisfy(\.isHexDigit), word.contains(where: \.isNumber), word.contains(where: \.isLetter) {
                breaks.formUnion(stride(from: start + 5, to: end - 1, by: 6))
            }
            start = end
        }
        return breaks
    }
}
