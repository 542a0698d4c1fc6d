import FlowModel

extension WorkflowDecoder {
    static let taskKeys: Set<String> = TaskFields.keys.union(["needs", "when", "inputs", "outputs", "matrix"]).union(Action.kinds)

    /// The tasks of one entry under `tasks`: one, or one per combination of its `matrix` (the
    /// first, then the rest); none if it cannot be described (no action, its action or its
    /// matrix is broken). Not an array for the usual one task: a large file has thousands.
    mutating func tasks(_ entry: MappingEntry, defaults: TaskFields) -> (first: TaskSpec?, rest: [TaskSpec]) {
        var matrixNode: Node?
        guard var spec = task(entry, defaults: defaults, matrix: &matrixNode) else { return (nil, []) }
        guard let matrixNode else {
            return (substituteMatrix(in: &spec, nil) ? spec : nil, [])
        }
        guard let matrix = matrix(matrixNode, task: spec.id), var all = expand(spec, matrix, at: matrixNode.mark, task: entry.keyMark), !all.isEmpty else {
            return (nil, [])
        }
        let first = all.removeFirst()
        return (first, all)
    }

    /// One task as written, its `matrix` (not yet expanded) handed back in `matrix`.
    private mutating func task(_ entry: MappingEntry, defaults: TaskFields, matrix: inout Node?) -> TaskSpec? {
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
                needs = distinctNeeds(strings(field.value, "'needs' of \(context())", allowSingle: true) ?? [], task: id)
            case "when":
                when = choice(field.value, "'when' of \(context())") ?? .success
            case "inputs":
                inputs = paths(field.value, "'inputs' of \(context())")
            case "outputs":
                outputs = paths(field.value, "'outputs' of \(context())")
            case "matrix":
                matrix = field.value
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
        warnOfForeignSyntax(in: entries, task: id, variables: (fields.env ?? []) + (defaults.env ?? []))
        let action: Action
        if let actionEntry {
            guard let decoded = self.action(actionEntry, task: id) else { return nil }
            action = decoded
        } else if !needs.isEmpty {
            action = .group  // as a go-task task with only `deps`: it succeeds when its needs do
        } else {
            report(.noAction(task: id), at: entry.keyMark)
            return nil
        }
        // Set on the task itself, it must have a script to run; from `defaults`, it applies where one is.
        if let interpreter = fields.interpreter, !action.isScript {
            report(Diagnostic(.interpreterWithoutScript(task: id, kind: action.kind), at: interpreter.location))
        }
        let merged = fields.over(defaults)
        var spec = TaskSpec(
            id: id, location: location(entry.keyMark), needs: needs, when: when, queue: merged.queue?.value,
            priority: merged.priority ?? .normal, retries: merged.retries ?? 0, retryDelay: merged.retryDelay ?? .seconds(1),
            timeout: merged.timeout, continueOnError: merged.continueOnError ?? false, env: merged.env ?? [],
            workdir: merged.workdir, description: merged.description, action: action)
        spec.inputs = inputs
        spec.outputs = outputs
        spec.interpreter = merged.interpreter?.value ?? .sh
        return spec
    }

    /// `needs` with each task once: a repeat is an error at it, as GitHub Actions (actionlint)
    /// has it, rather than a second edge that make or go-task would quietly run once.
    private mutating func distinctNeeds(_ needs: [Located<TaskID>], task: TaskID) -> [Located<TaskID>] {
        var first: [TaskID: SourceLocation] = [:]
        return needs.filter { need in
            if let earlier = first[need.value] {
                report(Diagnostic(.repeatedNeed(need.value, task: task, first: earlier), at: need.location))
                return false
            }
            first[need.value] = need.location
            return true
        }
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
        case "interpreter": fields.interpreter = interpreter(value, field())
        default: return false
        }
        return true
    }
}

extension WorkflowDecoder {
    /// `sh`, `bash`, `python`, or a non-empty list of non-empty argv words.
    mutating func interpreter(_ node: Node, _ field: @autoclosure () -> String) -> Located<Interpreter>? {
        if case .sequence = node.content {
            guard let words = strings(node, field(), allowSingle: false) else { return nil }
            guard !words.isEmpty else {
                if Self.isEmptyList(node) { report(.empty(field()), at: node) }
                return nil
            }
            if let empty = words.first(where: { $0.value.isEmpty }) {
                report(Diagnostic(.empty("an item of \(field())"), at: empty.location))
                return nil
            }
            return Located(.words(words.map(\.value)), at: location(node))
        }
        guard let name = string(node, field()) else { return nil }
        guard let interpreter = Interpreter(name: name) else {
            report(.unknownInterpreter(name, field: field()), at: node)
            return nil
        }
        return Located(interpreter, at: location(node))
    }
}

extension Action {
    /// A `shell` string, which an interpreter runs.
    var isScript: Bool {
        if case .shell(.script) = self { return true }
        return false
    }
}

extension Diagnostic.Message {
    /// Other interpreters by the flag that makes them run a script given as an argument: their
    /// list form is the hint (edit distance would offer 'sh' for 'zsh').
    private static let scriptFlags = [
        "zsh": "-c", "ksh": "-c", "dash": "-c", "fish": "-c", "node": "-e", "ruby": "-e", "perl": "-e", "pwsh": "-Command",
        "powershell": "-Command", "python2": "-c", "cmd": "/c",
    ]

    static func unknownInterpreter(_ name: String, field: String) -> Self {
        let text = "invalid value '\(name)' for \(field): expected one of \(Interpreter.names.joined(separator: ", ")), or a list of argv words"
        if let flag = scriptFlags[name] {
            return Self(text, hint: "write it as a list, the script is appended: 'interpreter: [\(name), \(flag)]'")
        }
        if let suggestion = Spelling.suggestion(for: name, among: Interpreter.names) {
            return Self(text, hint: "did you mean '\(suggestion)'?")
        }
        return Self(text, hint: "a list runs its words with the script appended, such as 'interpreter: [\(name), -c]'")
    }
    static func interpreterWithoutScript(task: TaskID, kind: String) -> Self {
        let what =
            switch kind {
            case "shell": "its 'shell' is an argv list, which runs without one"
            case "group": "it is a group task, which runs nothing"
            default: "its action is \(kind)"
            }
        return Self("'interpreter' of task '\(task)' has no script to run: it applies to a 'shell' string, and \(what)")
    }
}

extension WorkflowDecoder {
    /// Fields whose `${NAME}` flowrun expands: there `{{.NAME}}` can only be go-task's.
    private static let expandedFields: Set<String> = ["download", "decompress", "combine", "workdir", "inputs", "outputs"]

    /// Warns of go-task's `{{.NAME}}` and GitHub's `${{ ... }}` in the task's fields (`ForeignSyntax`);
    /// a description is only shown, never run, and is left alone.
    mutating func warnOfForeignSyntax(in entries: [MappingEntry], task: TaskID, variables: [EnvironmentEntry]) {
        var syntax: ForeignSyntax?
        for entry in entries where entry.key != "description" && entry.key != "needs" && entry.value.mayHoldBraces {
            if syntax == nil { syntax = ForeignSyntax(variables: workflowVariables.union(variables.map(\.name))) }
            warnOfForeignSyntax(in: entry.value, syntax!, field: entry.key, task: task, expanded: Self.expandedFields.contains(entry.key))
        }
    }

    private mutating func warnOfForeignSyntax(in node: Node, _ syntax: ForeignSyntax, field: String, task: TaskID, expanded: Bool) {
        switch node.content {
        case .scalar(let scalar):
            guard let (expression, note) = syntax.finding(in: scalar.text, expanded: expanded) else { return }
            report(
                Diagnostic(
                    Diagnostic.Message("'\(field)' of task '\(task)' holds '\(expression)', which flowrun does not expand", hint: note),
                    at: location(node), severity: .warning))
        case .sequence(let items):
            for item in items { warnOfForeignSyntax(in: item, syntax, field: field, task: task, expanded: expanded) }
        case .mapping(let pairs):
            for pair in pairs { warnOfForeignSyntax(in: pair.value, syntax, field: field, task: task, expanded: expanded) }
        }
    }
}

extension Node {
    /// Whether a `{` may be among the node's scalars: checked for a scalar, assumed for a collection.
    fileprivate var mayHoldBraces: Bool {
        guard case .scalar(let scalar) = content else { return true }
        return scalar.text.utf8.contains(UInt8(ascii: "{"))
    }
}
