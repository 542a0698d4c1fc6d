import FlowConsole

/// A run as one self-contained HTML file: a Gantt chart drawn by a little inline script from the
/// run's data, embedded as JSON. No network: the CSS, the SVG and the script are all inline.
///
/// The data, not the drawing, is what the file carries, so it stays small at thousands of
/// tasks; output tails are kept for the failures first, then for the others, within
/// `tailBudget` bytes, and shown on a click as one text block (no element per line).
package enum TimelineHTML {
    /// Bytes of output tails the file may carry (the 5,000-task run must stay under ~5 MB).
    package static let tailBudget = 2 << 20

    package static func render(_ timeline: RunTimeline) -> String {
        var page = TimelinePage.head
        page += "<title>" + escaped("\(timeline.workflow) · flowrun run \(timeline.run ?? "")") + "</title>\n"
        page += "<style>\n" + TimelinePage.style + "</style>\n</head>\n<body>\n"
        page += TimelinePage.body
        page += "<script type=\"application/json\" id=\"run-data\">" + data(timeline) + "</script>\n"
        page += "<script>\n" + TimelinePage.script + "</script>\n</body>\n</html>\n"
        return page
    }

    /// The run as JSON. Times are milliseconds from the run's start; each task is an array
    /// (see the script's `T_` constants) to keep the file small.
    static func data(_ timeline: RunTimeline) -> String {
        let start = timeline.startedMilliseconds
        func time(_ value: Int64?) -> String { value.map { String($0 - start) } ?? "null" }
        let tails = keptTails(timeline)
        var text = "{\"workflow\":\(JSONText.quoted(timeline.workflow)),\"run\":\(JSONText.quoted(timeline.run))"
        text += ",\"file\":\(JSONText.quoted(timeline.file)),\"result\":\(JSONText.quoted(timeline.result.rawValue))"
        text += ",\"duration\":\(timeline.durationMilliseconds),\"duration_text\":"
        text += JSONText.quoted(DurationText.string(milliseconds: timeline.durationMilliseconds))
        text += ",\"counts\":\(JSONText.quoted(JobSummary.counts(timeline))),\"slots\":\(timeline.slotCount)"
        text += ",\"concurrency\":\(timeline.concurrency.map(String.init) ?? "null")"
        text += ",\"critical\":[\(timeline.criticalPath.map(String.init).joined(separator: ","))],\"tasks\":[\n"
        for (at, task) in timeline.tasks.enumerated() {
            if at > 0 { text += ",\n" }
            text += "[\(JSONText.quoted(task.id)),\"\(task.result.rawValue)\",\(JSONText.quoted(task.kind)),\(JSONText.quoted(task.queue))"
            text += ",\(JSONText.quoted(task.priority)),\(time(task.readyMilliseconds)),\(time(task.endMilliseconds))"
            text += ",\(task.slot.map(String.init) ?? "null"),\(task.critical ? 1 : 0),\(task.exitCode.map(String.init) ?? "null")"
            text += ",\(JSONText.quoted(task.reason)),["
            for (position, attempt) in task.attempts.enumerated() {
                if position > 0 { text += "," }
                text += "[\(attempt.startMilliseconds - start),\(attempt.endMilliseconds - start),\"\(attempt.result.rawValue)\""
                text += ",\(JSONText.quoted(attempt.reason))]"
            }
            text += "],[\(task.needs.map(String.init).joined(separator: ","))],"
            // false: it printed, but the budget left its lines out (flowrun logs has them).
            text += tails[at].map { JSONText.quoted($0) } ?? (task.tail.isEmpty && task.droppedLines == 0 ? "null" : "false")
            text += ",\(task.droppedLines)]"
        }
        return text + "\n]}"
    }

    /// Each task's tail as one text, or nil where none is kept: failures first, then the rest in
    /// plan order, while the budget lasts.
    static func keptTails(_ timeline: RunTimeline) -> [String?] {
        var tails = [String?](repeating: nil, count: timeline.tasks.count)
        var left = tailBudget
        let failedFirst = timeline.tasks.indices.sorted { left, right in
            let (a, b) = (timeline.tasks[left].result, timeline.tasks[right].result)
            let (aFailed, bFailed) = (a == .failed || a == .allowed, b == .failed || b == .allowed)
            return aFailed != bFailed ? aFailed : left < right
        }
        for at in failedFirst where !timeline.tasks[at].tail.isEmpty {
            let text = timeline.tasks[at].tail.joined(separator: "\n")
            guard text.utf8.count <= left else { continue }
            left -= text.utf8.count
            tails[at] = text
        }
        return tails
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
