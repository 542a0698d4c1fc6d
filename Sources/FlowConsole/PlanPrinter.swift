import FlowModel
import Foundation
import FlowPlanning

/// Renders a plan for `--dry-run`: the order, waves, queues, priorities, resolved urls and paths.
public struct PlanPrinter: Sendable {
    public var style: Style
    public init(style: Style = Style(enabled: false)) { self.style = style }

    public func render(_ plan: Plan) -> String {
        let workflow = plan.workflow
        var output = "\(style.bold("plan")) \(workflow.name) (\(workflow.file)): "
        output += "\(plan.tasks.count) of \(workflow.tasks.count) tasks in \(plan.waveCount) waves, "
        output += "concurrency \(plan.concurrency), \(workflow.failFast ? "fail fast" : "keep going")\n"
        if !workflow.queues.isEmpty {
            output += "queues: " + workflow.queues.map { "\($0.name) (concurrency \($0.concurrency))" }.joined(separator: ", ") + "\n"
        }
        // Wave by wave: no task needs another of its own wave, so this listing is itself an
        // order in which the tasks can run, and its headings never go backwards.
        var number = 0
        for (index, wave) in plan.waves.enumerated() {
            output += "\n" + style.cyan("wave \(index + 1)") + "\n"
            for task in wave {
                number += 1
                output += describe(task, number: number, in: plan)
            }
        }
        return output
    }

    private func describe(_ task: PlannedTask, number: Int, in plan: Plan) -> String {
        let spec = task.spec
        var output = "  \(number). \(style.bold(task.id))  \(spec.action.kind)"
        if let description = spec.description { output += "  \(style.dim("# " + description))" }
        output += "\n"
        var settings: [String] = []
        if !task.needs.isEmpty { settings.append("needs " + task.needs.map { plan.tasks[$0].id }.joined(separator: ", ")) }
        if spec.when != .success { settings.append("when \(spec.when.rawValue)") }
        if let queue = spec.queue { settings.append("queue \(queue)") }
        if spec.priority != .normal { settings.append("priority \(spec.priority.rawValue)") }
        if spec.retries > 0 { settings.append("retries \(spec.retries) (delay \(spec.retryDelay))") }
        if let timeout = spec.timeout { settings.append("timeout \(timeout)") }
        if spec.continueOnError { settings.append("continue on error") }
        if !settings.isEmpty { output += field("", settings.joined(separator: ", ")) }
        for (name, value) in actionFields(task.action) { output += field(name, value) }
        output += field("workdir", task.workdir)
        if !task.environment.isEmpty {
            output += field("env", task.environment.map { "\($0.name)=\($0.value)" }.joined(separator: " "))
        }
        return output
    }

    private func field(_ name: String, _ value: String) -> String {
        name.isEmpty ? "       \(value)\n" : "       \(name): \(value)\n"
    }

    private func actionFields(_ action: Action) -> [(String, String)] {
        switch action {
        case .shell(.script(let script)):
            return [("run", script.contains("\n") ? script.split(separator: "\n").joined(separator: "\n            ") : script)]
        case .shell(.argv(let argv)):
            return [("argv", argv.map(quoted).joined(separator: " "))]
        case .download(let download):
            var fields = [("url", download.url.value), ("to", download.to.value)]
            if let sha256 = download.sha256 { fields.append(("sha256", sha256)) }
            for header in download.headers { fields.append(("header", "\(header.name): \(header.value.value)")) }
            return fields
        case .decompress(let decompress):
            var fields = [("from", decompress.from.value), ("to", decompress.to.value),
                          ("format", decompress.format?.rawValue ?? "detected from the content")]
            if decompress.stripComponents > 0 { fields.append(("strip_components", "\(decompress.stripComponents)")) }
            return fields
        case .combine(let combine):
            var fields = combine.inputs.map { ("input", $0.value) }
            fields += [("to", combine.to.value), ("format", combine.format.rawValue)]
            if combine.format == .image {
                var layout = combine.image.layout.rawValue
                if let columns = combine.image.columns { layout += ", \(columns) columns" }
                if let size = combine.image.cellSize { layout += ", cells \(size.width)x\(size.height)" }
                layout += ", background \(combine.image.background ?? "transparent")"
                fields.append(("layout", layout))
            }
            return fields
        }
    }

    /// An argument as a shell would need it written.
    private func quoted(_ argument: String) -> String {
        let plain = !argument.isEmpty && argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
        return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
