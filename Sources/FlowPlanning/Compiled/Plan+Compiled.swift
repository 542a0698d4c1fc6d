import FlowModel

/// A plan as bytes and back (`PlanWriter`, `PlanReader`), for the compiled-plan cache: a run of
/// an unchanged workflow reads its plan rather than parsing and planning the YAML again.
/// Every field is kept: a plan read back is the plan written.
extension Plan {
    package var compiled: [UInt8] {
        var writer = PlanWriter()
        writer.workflow(workflow)
        writer.int(concurrency)
        writer.int(waveCount)
        writer.array(tasks) { $0.plannedTask($1, in: workflow) }
        writer.array(secretOverrides.sorted { $0.key < $1.key }) {
            $0.string($1.key)
            $0.string($1.value)
        }
        writer.array(takenAsDone) { $0.plannedTask($1, in: workflow) }
        return writer.bytes
    }

    /// The plan `compiled` made of these bytes. Without `keepingFileTasks` (a run's read) the
    /// workflow's tasks are left out (`workflow.tasks` empty: a run takes every task from
    /// `tasks`), and a spec is read only for a planned task that shares it, straight into that
    /// task; a spec no planned task shares is stepped over unread. Such a read also leaves each
    /// spec's `inputs` and `outputs` as written in the file empty (`PlanReader.locatedWords`): a
    /// run reads the planned task's own, resolved; only `validate`, `list`, `--dry-run` and
    /// `export` show the file's words, and they read the file. The spec's `needs` (the names,
    /// where `--only` finds the needs taken as done, which the planned task's `needs` leave out)
    /// are kept unless `keepingNeedNames` is false: a plan with needs taken as done is then no
    /// plan (`CompiledPlanError`), so that none is read without them. Every byte is still
    /// checked as in the whole read.
    package init(compiled bytes: UnsafeRawBufferPointer, keepingFileTasks: Bool = true, keepingNeedNames: Bool = true) throws(CompiledPlanError) {
        var reader = try PlanReader(bytes)
        let (workflow, specs) = try reader.workflow(keepingTasks: keepingFileTasks)
        let concurrency = try reader.int()
        let waveCount = try reader.int()
        let words = PlanReader.SpecWords(files: keepingFileTasks, needs: keepingNeedNames)
        let tasks = try reader.array { (reader) throws(CompiledPlanError) in
            try reader.plannedTask(in: workflow, specs: specs, keeping: words)
        }
        var secrets: [String: String] = [:]
        for _ in 0..<(try reader.count()) { secrets[try reader.string()] = try reader.string() }
        let takenAsDone = try reader.array { (reader) throws(CompiledPlanError) in
            try reader.plannedTask(in: workflow, specs: specs, keeping: words)
        }
        guard reader.isAtEnd, keepingNeedNames || takenAsDone.isEmpty else { throw CompiledPlanError() }
        // Each need is a task of the plan and each wave in range, so that no index read here
        // is out of bounds later. (Two loops: `tasks + takenAsDone` copied every task.)
        let isSound = { (task: PlannedTask) in
            task.needs.allSatisfy(tasks.indices.contains) && (0...max(1, waveCount)).contains(task.wave)
        }
        guard tasks.allSatisfy(isSound), takenAsDone.allSatisfy(isSound) else { throw CompiledPlanError() }
        self.init(workflow: workflow, concurrency: concurrency, tasks: tasks, waveCount: waveCount, secretOverrides: secrets)
        self.takenAsDone = takenAsDone
    }
}

extension PlanWriter {
    mutating func workflow(_ workflow: Workflow) {
        string(workflow.file)
        string(workflow.directory)
        string(workflow.name)
        optional(workflow.concurrency) { $0.int($1) }
        bool(workflow.failFast)
        environment(workflow.env)
        array(workflow.dotenvFiles) { $0.located($1) }
        environment(workflow.dotenv)
        strings(workflow.dotenvEnvironmentNames)
        strings(workflow.dotenvSecretNames)
        array(workflow.includes) {
            $0.string($1.namespace)
            $0.located($1.path)
        }
        array(workflow.queues) {
            $0.string($1.name)
            $0.int($1.concurrency)
            $0.location($1.location)
        }
        // Each sized, so that a reader that keeps only the plan's tasks can step over it.
        array(workflow.tasks) { writer, spec in writer.sized { $0.taskSpec(spec) } }
        array(workflow.matrixCombinations.sorted { $0.key < $1.key }) {
            $0.string($1.key)
            $0.strings($1.value)
        }
    }

    /// A planned task; its spec, usually the workflow's task at its `fileIndex` unchanged, as a flag.
    mutating func plannedTask(_ task: PlannedTask, in workflow: Workflow) {
        int(task.fileIndex)
        let isFileTask = workflow.tasks.indices.contains(task.fileIndex) && workflow.tasks[task.fileIndex] == task.spec
        bool(isFileTask)
        if !isFileTask { taskSpec(task.spec) }
        array(task.needs) { $0.count($1) }
        int(task.wave)
        string(task.workdir)
        string(task.workflowDirectory)
        environment(task.environment)
        // Usually the spec's action unchanged (no `${...}` or relative path in it): a flag, so
        // that the reader shares the spec's rather than holding a second copy of its words.
        let isSpecAction = task.action == task.spec.action
        bool(isSpecAction)
        if !isSpecAction { action(task.action) }
        optional(task.shown) {
            $0.string($1.workdir)
            $0.action($1.action)
            $0.strings($1.inputs)
            $0.strings($1.outputs)
        }
        strings(task.inputs)
        strings(task.outputs)
        strings(task.arguments)
    }

    mutating func taskSpec(_ spec: TaskSpec) {
        string(spec.id)
        location(spec.location)
        array(spec.needs) { $0.located($1) }
        string(spec.when.rawValue)
        optional(spec.queue) { $0.string($1) }
        string(spec.priority.rawValue)
        int(spec.retries)
        int64(spec.retryDelay.milliseconds)
        optional(spec.timeout) { $0.int64($1.milliseconds) }
        bool(spec.continueOnError)
        environment(spec.env)
        optional(spec.workdir) { $0.located($1) }
        optional(spec.description) { $0.string($1) }
        array(spec.inputs) { $0.located($1) }
        array(spec.outputs) { $0.located($1) }
        interpreter(spec.interpreter)
        action(spec.action)
        strings(spec.secretEnvironmentNames.sorted())
    }

    mutating func interpreter(_ interpreter: Interpreter) {
        switch interpreter {
        case .sh: count(0)
        case .bash: count(1)
        case .python: count(2)
        case .words(let words):
            count(3)
            strings(words)
        }
    }

    mutating func action(_ action: Action) {
        switch action {
        case .shell(.script(let script)):
            count(0)
            string(script)
        case .shell(.argv(let words)):
            count(1)
            strings(words)
        case .download(let download):
            count(2)
            located(download.url)
            located(download.to)
            optional(download.sha256) { $0.string($1) }
            array(download.headers) {
                $0.string($1.name)
                $0.located($1.value)
            }
        case .decompress(let decompress):
            count(3)
            located(decompress.from)
            located(decompress.to)
            optional(decompress.format) { $0.string($1.rawValue) }
            int(decompress.stripComponents)
            optional(decompress.maxFiles) { $0.int($1) }
            optional(decompress.maxBytes) { $0.int($1) }
            optional(decompress.maxRatio) { $0.int($1) }
        case .combine(let combine):
            count(4)
            array(combine.inputs) { $0.located($1) }
            located(combine.to)
            string(combine.format.rawValue)
            string(combine.image.layout.rawValue)
            optional(combine.image.columns) { $0.int($1) }
            optional(combine.image.cellSize) {
                $0.int($1.width)
                $0.int($1.height)
            }
            optional(combine.image.background) { $0.string($1) }
            optional(combine.base) { $0.located($1) }
            optional(combine.prefix) { $0.located($1) }
        case .group:
            count(5)
        }
    }

    mutating func environment(_ entries: [EnvironmentEntry]) {
        array(entries) {
            $0.string($1.name)
            $0.string($1.value)
        }
    }

    mutating func location(_ location: SourceLocation) {
        string(location.file)
        int(location.line)
        int(location.column)
    }

    mutating func located(_ value: Located<String>) {
        string(value.value)
        location(value.location)
    }
}

extension PlanReader {
    /// The workflow, and where each of its tasks' specs lies (`sized(at:)`); its tasks decoded
    /// only if `keepingTasks`.
    mutating func workflow(keepingTasks: Bool) throws(CompiledPlanError) -> (Workflow, specs: [Range<Int>]) {
        var workflow = Workflow(file: try string(), directory: try string(), name: try string(), tasks: [])
        workflow.concurrency = try optional { (reader) throws(CompiledPlanError) in try reader.int() }
        workflow.failFast = try bool()
        workflow.env = try environment()
        workflow.dotenvFiles = try array { (reader) throws(CompiledPlanError) in try reader.located() }
        workflow.dotenv = try environment()
        workflow.dotenvEnvironmentNames = try strings()
        workflow.dotenvSecretNames = try strings()
        workflow.includes = try array { (reader) throws(CompiledPlanError) in
            Include(namespace: try reader.string(), path: try reader.located())
        }
        workflow.queues = try array { (reader) throws(CompiledPlanError) in
            QueueSpec(name: try reader.string(), concurrency: try reader.int(), location: try reader.location())
        }
        let specs = try array { (reader) throws(CompiledPlanError) in try reader.skipSized() }
        if keepingTasks {
            workflow.tasks.reserveCapacity(specs.count)
            for range in specs { workflow.tasks.append(try sized(at: range) { (reader) throws(CompiledPlanError) in try reader.taskSpec() }) }
        }
        for _ in 0..<(try count()) { workflow.matrixCombinations[try string()] = try strings() }
        return (workflow, specs)
    }

    /// Which of a spec's lists of words a read keeps (`taskSpec(keeping:)`): its `inputs` and
    /// `outputs` as written in the file (`files`), and the names of its `needs` (`needs`).
    struct SpecWords {
        var files = true
        var needs = true
    }

    /// A planned task; `specs`: where the workflow's tasks' specs lie, read from there when
    /// `workflow` does not hold them; `words`: as in `taskSpec`.
    mutating func plannedTask(
        in workflow: Workflow, specs: [Range<Int>], keeping words: SpecWords = SpecWords()
    ) throws(CompiledPlanError)
        -> PlannedTask
    {
        let fileIndex = try int()
        let spec: TaskSpec
        if try bool() {
            guard specs.indices.contains(fileIndex) else { throw CompiledPlanError() }
            spec =
                workflow.tasks.isEmpty
                ? try sized(at: specs[fileIndex]) { (reader) throws(CompiledPlanError) in try reader.taskSpec(keeping: words) }
                : workflow.tasks[fileIndex]
        } else {
            spec = try taskSpec(keeping: words)
        }
        // Every field read first, in the order written, and the task made once at the end: the
        // spec moved into it (a read of its action after the init kept a copy of the whole spec),
        // and no copy of a task mutated after it was made (a few thousand instructions a task,
        // before the run's first spawn).
        let needs = try array { (reader) throws(CompiledPlanError) in try reader.count() }
        let wave = try int()
        let workdir = try string()
        let workflowDirectory = try string()
        let environment = try environment()
        let action = try bool() ? spec.action : try action()
        let shown = try optional { (reader) throws(CompiledPlanError) in
            ShownFields(workdir: try reader.string(), action: try reader.action(), inputs: try reader.strings(), outputs: try reader.strings())
        }
        let inputs = try strings()
        let outputs = try strings()
        let arguments = try strings()
        return PlannedTask(
            spec: spec, fileIndex: fileIndex, needs: needs, wave: wave, workdir: workdir, workflowDirectory: workflowDirectory,
            environment: environment, action: action, shown: shown, inputs: inputs, outputs: outputs, arguments: arguments)
    }

    /// A spec; its `inputs` and `outputs` as written in the file, and its `needs`, each kept
    /// or checked and stepped over and left empty, as `words` says (`Plan(compiled:keepingFileTasks:keepingNeedNames:)`).
    mutating func taskSpec(keeping words: SpecWords = SpecWords()) throws(CompiledPlanError) -> TaskSpec {
        var spec = TaskSpec(
            id: try string(), location: try location(), needs: try locatedWords(keeping: words.needs),
            when: try raw(When.self), queue: try optional { (reader) throws(CompiledPlanError) in try reader.string() },
            priority: try raw(Priority.self), retries: try int(), retryDelay: TimeSpan(milliseconds: try int64()),
            timeout: try optional { (reader) throws(CompiledPlanError) in TimeSpan(milliseconds: try reader.int64()) },
            continueOnError: try bool(), env: try environment(),
            workdir: try optional { (reader) throws(CompiledPlanError) in try reader.located() },
            description: try optional { (reader) throws(CompiledPlanError) in try reader.string() }, action: .group)
        spec.inputs = try locatedWords(keeping: words.files)
        spec.outputs = try locatedWords(keeping: words.files)
        spec.interpreter = try interpreter()
        spec.action = try action()
        spec.secretEnvironmentNames = Set(try strings())
        return spec
    }

    /// A list of `Located` words; when not `keeping` them, each is checked as `located()`
    /// checks it and the list is left empty (no array, no string retained).
    mutating func locatedWords(keeping: Bool) throws(CompiledPlanError) -> [Located<String>] {
        if keeping { return try array { (reader) throws(CompiledPlanError) in try reader.located() } }
        let count = try count()
        // Every element takes at least a byte, as in `array`.
        guard count <= remainingCount else { throw CompiledPlanError() }
        for _ in 0..<count {
            try stringIndex()
            try stringIndex()
            _ = try int()
            _ = try int()
        }
        return []
    }

    mutating func interpreter() throws(CompiledPlanError) -> Interpreter {
        switch try count() {
        case 0: .sh
        case 1: .bash
        case 2: .python
        case 3: .words(try strings())
        default: throw CompiledPlanError()
        }
    }

    mutating func action() throws(CompiledPlanError) -> Action {
        switch try count() {
        case 0:
            return .shell(.script(try string()))
        case 1:
            return .shell(.argv(try strings()))
        case 2:
            return .download(
                DownloadAction(
                    url: try located(), to: try located(), sha256: try optional { (reader) throws(CompiledPlanError) in try reader.string() },
                    headers: try array { (reader) throws(CompiledPlanError) in
                        DownloadAction.Header(name: try reader.string(), value: try reader.located())
                    }))
        case 3:
            return .decompress(
                DecompressAction(
                    from: try located(), to: try located(),
                    format: try optional { (reader) throws(CompiledPlanError) in try reader.raw(ArchiveFormat.self) },
                    stripComponents: try int(), maxFiles: try optional { (reader) throws(CompiledPlanError) in try reader.int() },
                    maxBytes: try optional { (reader) throws(CompiledPlanError) in try reader.int() },
                    maxRatio: try optional { (reader) throws(CompiledPlanError) in try reader.int() }))
        case 4:
            let inputs = try array { (reader) throws(CompiledPlanError) in try reader.located() }
            let to = try located()
            let format = try raw(CombineFormat.self)
            var image = CombineAction.ImageOptions()
            image.layout = try raw(ImageLayout.self)
            image.columns = try optional { (reader) throws(CompiledPlanError) in try reader.int() }
            image.cellSize = try optional { (reader) throws(CompiledPlanError) in
                CombineAction.CellSize(width: try reader.int(), height: try reader.int())
            }
            image.background = try optional { (reader) throws(CompiledPlanError) in try reader.string() }
            let base = try optional { (reader) throws(CompiledPlanError) in try reader.located() }
            let prefix = try optional { (reader) throws(CompiledPlanError) in try reader.located() }
            return .combine(CombineAction(inputs: inputs, to: to, format: format, image: image, base: base, prefix: prefix))
        case 5:
            return .group
        default:
            throw CompiledPlanError()
        }
    }

    mutating func environment() throws(CompiledPlanError) -> [EnvironmentEntry] {
        try array { (reader) throws(CompiledPlanError) in EnvironmentEntry(name: try reader.string(), value: try reader.string()) }
    }

    mutating func location() throws(CompiledPlanError) -> SourceLocation {
        SourceLocation(file: try string(), line: try int(), column: try int())
    }

    mutating func located() throws(CompiledPlanError) -> Located<String> {
        Located(try string(), at: try location())
    }
}
