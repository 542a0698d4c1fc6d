import FlowModel
import FlowPlanning
import Foundation

/// Renders a plan's task graph as text, Graphviz dot or Mermaid.
package enum GraphFormatter {
    package enum Format: String, CaseIterable, Sendable {
        case text, dot, mermaid
    }

    package static func render(_ plan: Plan, as format: Format) -> String {
        switch format {
        case .text: text(plan)
        case .dot: dot(plan)
        case .mermaid: mermaid(plan)
        }
    }

    /// One line per task in plan order: `task <- need, need`.
    static func text(_ plan: Plan) -> String {
        plan.tasks.map { task in
            var line = task.id
            if !task.needs.isEmpty { line += " <- " + task.needs.map { plan.tasks[$0].id }.joined(separator: ", ") }
            if task.spec.when != .success { line += "  (when \(task.spec.when.rawValue))" }
            return line + "\n"
        }.joined()
    }

    /// Edges point the way work flows, from a need to the task that needs it; edges into a
    /// `when: failure` or `when: always` task are dashed.
    static func dot(_ plan: Plan) -> String {
        var output = "digraph \(dotQuoted(plan.workflow.name)) {\n  rankdir=LR;\n  node [shape=box];\n"
        for task in plan.tasks {
            output += "  \(dotQuoted(task.id)) [label=\(dotQuoted("\(task.id)\n\(task.spec.action.kind)"))];\n"
        }
        for task in plan.tasks {
            let style = task.spec.when == .success ? "" : " [style=dashed, label=\(dotQuoted(task.spec.when.rawValue))]"
            for need in task.needs { output += "  \(dotQuoted(plan.tasks[need].id)) -> \(dotQuoted(task.id))\(style);\n" }
        }
        return output + "}\n"
    }

    static func mermaid(_ plan: Plan) -> String {
        var output = "flowchart LR\n"
        for (index, task) in plan.tasks.enumerated() {
            output += "  t\(index)[\"\(task.id)<br/>\(task.spec.action.kind)\"]\n"
        }
        for (index, task) in plan.tasks.enumerated() {
            let arrow = task.spec.when == .success ? "-->" : "-. \(task.spec.when.rawValue) .->"
            for need in task.needs { output += "  t\(need) \(arrow) t\(index)\n" }
        }
        return output
    }

    private static func dotQuoted(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
