import FlowModel

extension WorkflowDecoder {
    static let taskKeys: Set<String> = TaskFields.keys.union(["needs", "when", "inputs", "outputs"]).union(Action.kinds)

    /// One task; nil if it cannot be described (no action, or its action is broken).
    mutating func task(_ entry: MappingEntry, defaults: TaskFields) -> TaskSpec? {
        let id = entry.key
        func context() -> String { "task '\(id)'" }
        guard let entries = entries(entry.value, context()) else { return nil }
        var fields = TaskFields()
        var needs: [Located<TaskID>] = []
        var when = When.success
        var inputs: [Located<String>] = []
        var outputs: [Located<String>] = []
        var actionEntry: MappingEntry?
        for field in entries {
            switch field.key {
            case "needs":
                needs = strings(field.value, "'needs' of \(context())", allowSingle: true) ?? []
            case "when":
                when = choice(field.value, "'when' of \(context())") ?? .success
            case "inputs":
                inputs = paths(field.value, "'inputs' of \(context())")
            case "outputs":
                outputs = paths(field.value, "'outputs' of \(context())")
            case let key where Action.kinds.contains(key):
                if let first = actionEntry {
                    report(.secondAction(key, task: id, first: first.key), at: field.keyMark)
                } else {
                    actionEntry = field
                }
            default:
                if !decodeCommonField(field, into: &fields, context: context()) {
                    if let note = ForeignKeys.note(for: field.key) {
                        report(.unknownKey(field.key, in: context(), note: note), at: field.keyMark)
                    } else {
                        let suggestion = Spelling.suggestion(for: field.key, among: Self.taskKeys.sorted())
                        report(.unknownKey(field.key, in: context(), suggestion: suggestion), at: field.keyMark)
                    }
                }
            }
        }
        guard let actionEntry else {
            report(.noAction(task: id), at: entry.keyMark)
            return nil
        }
        guard let action = action(actionEntry, task: id) else { return nil }
        let merged = fields.over(defaults)
        var spec = TaskSpec(
            id: id, location: location(entry.keyMark), needs: needs, when: when, queue: merged.queue?.value,
            priority: merged.priority ?? .normal, retries: merged.retries ?? 0, retryDelay: merged.retryDelay ?? .seconds(1),
            timeout: merged.timeout, continueOnError: merged.continueOnError ?? false, env: merged.env ?? [],
            workdir: merged.workdir, description: merged.description, action: action)
        spec.inputs = inputs
        spec.outputs = outputs
        return spec
    }

    /// `inputs` or `outputs`: a list of non-empty paths or globs.
    private mutating func paths(_ node: Node, _ field: @autoclosure () -> String) -> [Located<String>] {
        guard let items = strings(node, field(), allowSingle: false) else { return [] }
        return items.filter { item in
            guard item.value.isEmpty else { return true }
            report(Diagnostic(.empty("an item of \(field())"), at: item.location))
            return false
        }
    }

    /// Decodes one of the fields a task shares with `defaults`; false if `entry` is not one of them.
    mutating func decodeCommonField(
        _ entry: MappingEntry, into fields: inout TaskFields, context: @autoclosure () -> String
    ) -> Bool {
        let key = entry.key  // the name captures the key alone: a whole entry would be copied along
        func field() -> String { "'\(key)' of \(context())" }
        let value = entry.value
        switch entry.key {
        case "queue":
            if let name = locatedString(value, field()) {
                if declaredQueues.contains(name.value) {
                    fields.queue = name
                } else {
                    report(.undeclaredQueue(name.value, suggestion: Spelling.suggestion(for: name.value, among: queueNames)), at: value)
                }
            }
        case "priority": fields.priority = choice(value, field())
        case "retries": fields.retries = int(value, field(), minimum: 0)
        case "retry_delay": fields.retryDelay = duration(value, field())
        case "timeout":
            fields.timeout = duration(value, field())
            if fields.timeout?.milliseconds == 0 {
                report(.zeroTimeout(field()), at: value)
                fields.timeout = nil
            }
        case "continue_on_error": fields.continueOnError = bool(value, field())
        case "env": fields.env = environment(value, field())
        case "workdir": fields.workdir = nonEmptyString(value, field())
        case "description": fields.description = string(value, field())
        default: return false
        }
        return true
    }
}
