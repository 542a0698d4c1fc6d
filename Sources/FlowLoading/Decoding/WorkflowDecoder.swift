import FlowModel

/// Decodes a node tree into a `Workflow`, gathering every structural problem as it goes.
struct WorkflowDecoder {
    let file: String
    var diagnostics: [Diagnostic] = []
    var reported: Set<Diagnostic> = []
    /// Declared queue names, known before tasks are decoded: in file order for suggestions, and
    /// as a set for each task's lookup.
    var queueNames: [String] = [] {
        didSet { declaredQueues = Set(queueNames) }
    }
    var declaredQueues: Set<String> = []
    /// Every key under `tasks`, decodable or not.
    var declaredTaskIDs: [TaskID] = []
    /// The names of the workflow's `env`: `{{.NAME}}` with one of them is go-task's (`ForeignSyntax`).
    var workflowVariables: Set<String> = []

    init(file: String) { self.file = file }

    static let topLevelKeys: Set<String> = [
        "version", "name", "concurrency", "fail_fast", "env", "queues", "defaults", "tasks", "dotenv", "include",
    ]

    /// The workflow, or nil when the file is too broken to describe one; diagnostics either way.
    mutating func decode(_ root: Node?, directory: String, defaultName: String) -> Workflow? {
        guard let root else {
            diagnostics.append(Diagnostic(.emptyFile, at: SourceLocation(file: file, line: 1, column: 1)))
            return nil
        }
        guard let entries = entries(root, "the top level") else { return nil }
        rejectUnknownKeys(entries, allowed: Self.topLevelKeys, in: "the top level", notes: ForeignKeys.topLevelNote(for:))
        requireKeys(["version", "tasks"], in: entries, of: root, context: "the top level")
        var top: [String: Node] = [:]
        for entry in entries { top[entry.key] = entry.value }

        if let version = top["version"], let number = int(version, "'version'", minimum: 1), number != 1 {
            report(.unsupportedVersion(version.scalar!.text), at: version)
        }
        var workflow = Workflow(file: file, directory: directory, name: defaultName, tasks: [])
        if let node = top["name"], let name = string(node, "'name'") { workflow.name = name }
        if let node = top["concurrency"] { workflow.concurrency = int(node, "'concurrency'", minimum: 1) }
        if let node = top["fail_fast"], let failFast = bool(node, "'fail_fast'") { workflow.failFast = failFast }
        if let node = top["env"] { workflow.env = environment(node, "'env'") ?? [] }
        if let node = top["dotenv"] { workflow.dotenvFiles = dotenvFiles(node) }
        if let node = top["include"], let includes = self.entries(node, "'include'") {
            for entry in includes {
                guard entry.key.isValidTaskID else {
                    report(.invalidNamespace(entry.key), at: entry.keyMark)
                    continue
                }
                if let path = nonEmptyString(entry.value, "'\(entry.key)' of 'include'") {
                    workflow.includes.append(Include(namespace: entry.key, path: path))
                }
            }
        }
        workflowVariables = Set(workflow.env.map(\.name))
        if let node = top["queues"] { workflow.queues = queues(node) }
        let defaults = top["defaults"].flatMap { defaultFields($0) } ?? TaskFields()
        if let node = top["tasks"] { workflow.tasks = tasks(node, defaults: defaults) }
        workflow.matrixCombinations = Self.expandMatrixNeeds(of: &workflow.tasks)
        return workflow
    }

    /// `dotenv:`: a path or a list of paths, `?path` for one that may be missing.
    private mutating func dotenvFiles(_ node: Node) -> [Located<String>] {
        // In a flow list (`[.env, ?.env.local]`) YAML reads `?` as a mapping key: said plainly.
        if case .sequence(let items) = node.content {
            for item in items {
                if case .mapping(let pairs) = item.content, let key = pairs.first?.key.scalar?.text {
                    report(.optionalDotenvAsKey(key), at: item)
                }
            }
        }
        let items = strings(node, "'dotenv'", allowSingle: true) ?? []
        return items.filter { file in
            guard file.value.isEmpty || file.value == "?" else { return true }
            report(Diagnostic(.empty("an item of 'dotenv'"), at: file.location))
            return false
        }
    }

    private mutating func queues(_ node: Node) -> [QueueSpec] {
        guard let entries = entries(node, "'queues'") else { return [] }
        // Every declared name counts, so a queue with a bad limit is not also "undeclared".
        queueNames = entries.map(\.key)
        var queues: [QueueSpec] = []
        for entry in entries {
            guard entry.key.isValidTaskID else {
                report(.invalidQueueName(entry.key), at: entry.keyMark)
                continue
            }
            let context = "queue '\(entry.key)'"
            guard let fields = self.entries(entry.value, context) else { continue }
            rejectUnknownKeys(fields, allowed: ["concurrency"], in: context)
            requireKeys(["concurrency"], in: fields, of: entry.value, context: context)
            if let value = fields.first(where: { $0.key == "concurrency" }),
                let concurrency = int(value.value, "'concurrency' of \(context)", minimum: 1)
            {
                queues.append(QueueSpec(name: entry.key, concurrency: concurrency, location: location(entry.keyMark)))
            }
        }
        return queues
    }

    private mutating func defaultFields(_ node: Node) -> TaskFields? {
        guard let entries = entries(node, "'defaults'") else { return nil }
        var fields = TaskFields()
        for entry in entries {
            if entry.key == "needs" || entry.key == "when" || entry.key == "matrix" || Action.kinds.contains(entry.key) {
                report(.notInDefaults(entry.key), at: entry.keyMark)
            } else if !decodeCommonField(entry, into: &fields, context: "'defaults'") {
                let suggestion = Spelling.suggestion(for: entry.key, among: TaskFields.keys.sorted())
                report(.unknownKey(entry.key, in: "'defaults'", suggestion: suggestion), at: entry.keyMark)
            }
        }
        return fields
    }

    private mutating func tasks(_ node: Node, defaults: TaskFields) -> [TaskSpec] {
        guard let entries = entries(node, "'tasks'") else { return [] }
        // A mapping whose keys are all unusable was reported key by key already.
        if case .mapping(let pairs) = node.content, pairs.isEmpty { report(.noTasks, at: node) }
        declaredTaskIDs = entries.map(\.key)
        // Each task decodes on its own, so a large file's are decoded a chunk per core, each
        // chunk by a decoder of its own whose problems are then gathered in file order.
        var chunkDecoder = self
        chunkDecoder.diagnostics = []
        chunkDecoder.reported = []
        let startingDecoder = chunkDecoder
        // A matrix task's first combination is added in its place, the others are handed back
        // beside it (`add` takes one task per entry) and put after it once the chunks are done.
        let (tasks, chunks) = ChunkedWork.gather(entries.count) { range, add in
            var decoder = startingDecoder
            var added = 0
            var more: [(after: Int, tasks: [TaskSpec])] = []
            for entry in entries[range] {
                if !entry.key.isValidTaskID { decoder.report(.invalidTaskID(entry.key), at: entry.keyMark) }
                let (first, rest) = decoder.tasks(entry, defaults: defaults)
                if let first {
                    add(first)
                    added += 1
                }
                if !rest.isEmpty { more.append((added, rest)) }
            }
            return (diagnostics: decoder.diagnostics, added: added, more: more)
        }
        for chunk in chunks { chunk.diagnostics.forEach { report($0) } }
        guard chunks.contains(where: { !$0.more.isEmpty }) else { return tasks }
        var all: [TaskSpec] = []
        var start = 0
        for chunk in chunks {
            var next = start
            for (after, rest) in chunk.more {
                all += tasks[next..<(start + after)]
                all += rest
                next = start + after
            }
            all += tasks[next..<(start + chunk.added)]
            start += chunk.added
        }
        return all
    }

    /// The ids of each matrix task's combinations, by its name; and every task's `needs` with
    /// a matrix task's name replaced by all its combinations (at the place the name is written).
    static func expandMatrixNeeds(of tasks: inout [TaskSpec]) -> [TaskID: [TaskID]] {
        var combinations: [TaskID: [TaskID]] = [:]
        for task in tasks {
            guard task.id.last == "]", let open = task.id.firstIndex(of: "[") else { continue }
            combinations[String(task.id[..<open]), default: []].append(task.id)
        }
        guard !combinations.isEmpty else { return [:] }
        for index in tasks.indices where tasks[index].needs.contains(where: { combinations[$0.value] != nil }) {
            // Once each: `needs: [build, 'build[linux]']` names that combination twice.
            var seen: Set<TaskID> = []
            tasks[index].needs = tasks[index].needs.flatMap { need in
                combinations[need.value].map { $0.map { Located($0, at: need.location) } } ?? [need]
            }.filter { seen.insert($0.value).inserted }
        }
        return combinations
    }
}
