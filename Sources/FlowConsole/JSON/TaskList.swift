import FlowEvents
import FlowModel

/// The tasks of a workflow in file order, as `flowrun list` prints them: a table for people
/// (as go-task's `task --list`) or a JSON array for scripts.
package enum TaskList {
    /// `* id:  description  (needs: a, b; queue: q)`, ids padded to a common width. Values come
    /// from the file, so their control characters are shown as escapes.
    package static func text(_ workflow: Workflow) -> String {
        let width = workflow.tasks.map { VisibleText.escaped($0.id).count }.max() ?? 0
        var output = "tasks of \(VisibleText.escaped(workflow.name)) (\(VisibleText.escaped(workflow.file))):\n"
        for task in workflow.tasks {
            let id = VisibleText.escaped(task.id)
            var line = "* \(id):" + String(repeating: " ", count: width - id.count)
            if let description = task.description, !description.isEmpty { line += "  " + VisibleText.escaped(description) }
            var details: [String] = []
            if !task.needs.isEmpty { details.append("needs: " + task.needs.map { VisibleText.escaped($0.value) }.joined(separator: ", ")) }
            if let queue = task.queue { details.append("queue: " + VisibleText.escaped(queue)) }
            if !details.isEmpty { line += "  (" + details.joined(separator: "; ") + ")" }
            // The padding lines up what follows; with nothing after the id it would only trail.
            if line.count == "* \(id):".count + width - id.count { line = "* \(id):" }
            output += line + "\n"
        }
        return output
    }

    /// One object per task, in file order: `id`, `description` (null when none), `needs`,
    /// `queue` (null for none), `kind`, `when`, `priority`, `line`.
    package static func json(_ workflow: Workflow) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (index, task) in workflow.tasks.enumerated() {
            bytes.append(contentsOf: (index == 0 ? "\n  {\"id\": " : ",\n  {\"id\": ").utf8)
            JSONObjectWriter.appendString(task.id, to: &bytes)
            bytes.append(contentsOf: ", \"description\": ".utf8)
            appendOptional(task.description, to: &bytes)
            bytes.append(contentsOf: ", \"needs\": [".utf8)
            for (position, need) in task.needs.enumerated() {
                if position > 0 { bytes.append(contentsOf: ", ".utf8) }
                JSONObjectWriter.appendString(need.value, to: &bytes)
            }
            bytes.append(contentsOf: "], \"queue\": ".utf8)
            appendOptional(task.queue, to: &bytes)
            for (key, value) in [("kind", task.action.kind), ("when", task.when.rawValue), ("priority", task.priority.rawValue)] {
                bytes.append(contentsOf: ", \"\(key)\": ".utf8)
                JSONObjectWriter.appendString(value, to: &bytes)
            }
            bytes.append(contentsOf: ", \"line\": ".utf8)
            JSONObjectWriter.appendInteger(Int64(task.location.line), to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(contentsOf: (workflow.tasks.isEmpty ? "]\n" : "\n]\n").utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendOptional(_ value: String?, to bytes: inout [UInt8]) {
        guard let value else { return bytes.append(contentsOf: "null".utf8) }
        JSONObjectWriter.appendString(value, to: &bytes)
    }
}
