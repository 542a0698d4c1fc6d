import FlowLoading
import FlowModel
import FlowPlanning
import Testing

/// `Plan.compiled`: a plan as bytes for the compiled-plan cache, read back as the same plan.
@Suite struct CompiledPlanTests {
    /// Every kind of field a plan holds: each action, queues, a matrix, timeouts and retries,
    /// an interpreter's words, a secret shown as `***`, arguments after `--`.
    static let everything = """
        version: 1
        name: all
        concurrency: 3
        fail_fast: false
        env: {GREETING: hello, DIR: out}
        queues: {net: {concurrency: 2}}
        tasks:
          get:
            download: {url: "https://h/?t=${GH_TOKEN}", to: "${DIR}/f.tgz", sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08, headers: {Accept: "*/*"}}
            queue: net
            priority: high
            retries: 2
            retry_delay: 500ms
            timeout: 1m30s
          unpack: {needs: get, decompress: {from: out/f.tgz, to: out/f, format: tar.gz, strip_components: 1}, when: always}
          pics: {needs: unpack, combine: {inputs: ["out/f/*.png"], to: out/all.png, format: image, layout: grid, columns: 2, size: 10x20, background: "#ff0000"}}
          test:
            matrix: {os: [linux, mac]}
            shell: echo $MATRIX_OS "$@"
            interpreter: [bash, -c]
            inputs: ["src/*.c"]
            outputs: ["out/${matrix.os}.txt"]
            workdir: sub
            continue_on_error: true
            description: a test
            env: {MODE: fast}
          pack: {needs: unpack, combine: {inputs: ["out/f/*"], to: "out/${GH_TOKEN}.tgz", format: tar.gz, base: out/f, prefix: app-1.0/}, inputs: ["in/${GH_TOKEN}"], outputs: ["out/${GH_TOKEN}.tgz"]}
          argv: {shell: [echo, hi], needs: [test], priority: very-low}
          all: {needs: [pics, pack, argv]}
        """

    func plan(_ text: String, targets: [TaskID] = [], arguments: [String] = []) throws -> Plan {
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        var options = PlanningOptions()
        options.targets = targets
        options.taskArguments = arguments
        options.processEnvironment = ["GH_TOKEN": "ghp_1"]
        options.processorCount = 4
        let workflow = try #require(loaded.workflow)
        return try #require(try Planner.plan(workflow, options: options).plan)
    }

    func readBack(_ bytes: [UInt8], keepingFileTasks: Bool = true) throws -> Plan {
        try bytes.withUnsafeBytes { (raw) throws(CompiledPlanError) in try Plan(compiled: raw, keepingFileTasks: keepingFileTasks) }
    }

    /// `spec` as a run's read gives it: without its `inputs` and `outputs` as written in the file.
    static func forRun(_ spec: TaskSpec) -> TaskSpec {
        var spec = spec
        spec.inputs = []
        spec.outputs = []
        return spec
    }

    /// `plan` read back from its bytes, field by field.
    func expectReadBackWhole(_ plan: Plan) throws {
        let bytes = plan.compiled
        let read = try readBack(bytes)
        #expect(read.workflow == plan.workflow)
        #expect(read.concurrency == plan.concurrency && read.waveCount == plan.waveCount)
        #expect(read.secretOverrides == plan.secretOverrides)
        #expect(read.tasks.count == plan.tasks.count)
        for (was, now) in zip(plan.tasks, read.tasks) {
            #expect(now.spec == was.spec && now.fileIndex == was.fileIndex && now.needs == was.needs && now.wave == was.wave)
            #expect(now.workdir == was.workdir && now.workflowDirectory == was.workflowDirectory && now.environment == was.environment)
            #expect(now.action == was.action && now.inputs == was.inputs && now.outputs == was.outputs && now.arguments == was.arguments)
            #expect(now.shown?.workdir == was.shown?.workdir && now.shown?.action == was.shown?.action)
            #expect(now.shown?.inputs == was.shown?.inputs && now.shown?.outputs == was.shown?.outputs)
        }
        #expect(read.compiled == bytes)
    }

    @Test func aPlanReadBackIsThePlanWritten() throws {
        let plan = try plan(Self.everything)
        #expect(Set(plan.tasks.map(\.spec.action.kind)) == ["download", "decompress", "combine", "shell", "group"], "the test covers them")
        #expect(plan.tasks.contains { $0.shown != nil } && plan.workflow.matrixCombinations["test"]?.count == 2)
        try expectReadBackWhole(plan)
    }

    /// The codec writes each stored field by name, by hand: a field added to one of these types
    /// and not to `Plan+Compiled.swift` would be lost by a cached run (a run of the same file
    /// doing something else). This list fails first, so that the codec is looked at.
    @Test func theCodecKnowsEveryFieldOfThePlan() throws {
        let plan = try plan(Self.everything)
        func fields(_ value: Any) -> [String] { Mirror(reflecting: value).children.compactMap(\.label) }
        let task = try #require(plan.tasks.first { $0.shown != nil })
        let combine = try #require(
            plan.tasks.lazy.compactMap { task -> CombineAction? in if case .combine(let combine) = task.action { combine } else { nil } }.first)
        let download = try #require(
            plan.tasks.lazy.compactMap { task -> DownloadAction? in if case .download(let download) = task.action { download } else { nil } }.first)
        let decompress = try #require(
            plan.tasks.lazy.compactMap { task -> DecompressAction? in if case .decompress(let decompress) = task.action { decompress } else { nil } }
                .first)
        // `interpolatedNames` keys the cache when a plan just made is stored; a plan read back is
        // never stored again, so it is not in `compiled` (Plan.swift).
        #expect(fields(plan) == ["workflow", "concurrency", "tasks", "waveCount", "secretOverrides", "takenAsDone", "interpolatedNames"])
        #expect(
            fields(plan.workflow) == [
                "file", "directory", "name", "concurrency", "failFast", "env", "dotenvFiles", "dotenv", "dotenvEnvironmentNames", "dotenvSecretNames",
                "includes", "queues", "tasks",
                "matrixCombinations",
            ])
        #expect(
            fields(task) == [
                "spec", "fileIndex", "needs", "wave", "workdir", "workflowDirectory", "environment", "action", "shown", "inputs", "outputs",
                "arguments",
            ])
        #expect(
            fields(task.spec) == [
                "id", "location", "needs", "when", "queue", "priority", "retries", "retryDelay", "timeout", "continueOnError", "env",
                "secretEnvironmentNames", "workdir", "description", "inputs", "outputs", "interpreter", "action",
            ])
        #expect(fields(try #require(task.shown)) == ["workdir", "action", "inputs", "outputs"])
        #expect(fields(combine) == ["inputs", "to", "format", "image", "base", "prefix"])
        #expect(fields(combine.image) == ["layout", "columns", "cellSize", "background"])
        #expect(fields(download) == ["url", "to", "sha256", "headers"])
        #expect(fields(decompress) == ["from", "to", "format", "stripComponents", "maxFiles", "maxBytes", "maxRatio"])
    }

    @Test func theWordsAfterTheTasksNamedAreReadBack() throws {
        let plan = try plan(Self.everything, targets: ["argv"], arguments: ["x y", "z"])
        #expect(plan.tasks.last?.arguments == ["x y", "z"])
        try expectReadBackWhole(plan)
    }

    @Test func aPlanUnderOnlyKeepsTheNeedsTakenAsDone() throws {
        let loaded = WorkflowLoader.decode(Array(Self.everything.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        var options = PlanningOptions()
        options.targets = ["pics"]
        options.onlyTargets = true
        options.processEnvironment = ["GH_TOKEN": "ghp_1"]
        let workflow = try #require(loaded.workflow)
        let plan = try #require(try Planner.plan(workflow, options: options).plan)
        #expect(!plan.takenAsDone.isEmpty)
        let read = try readBack(plan.compiled)
        #expect(read.takenAsDone.map(\.id) == plan.takenAsDone.map(\.id))
        #expect(read.takenAsDone.map(\.outputs) == plan.takenAsDone.map(\.outputs))
    }

    /// A run's read leaves out the specs' `inputs` and `outputs` as written, which a run never
    /// reads: the planned tasks' own (resolved, what the up-to-date check and the record read)
    /// and the spec's `needs` (where `--only` finds the needs taken as done) are all there.
    @Test func aPlanReadForARunLeavesOutTheFilesWordsOfInputsAndOutputsOnly() throws {
        let loaded = WorkflowLoader.decode(Array(Self.everything.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        var options = PlanningOptions()
        options.targets = ["pics", "pack"]
        options.onlyTargets = true
        options.processEnvironment = ["GH_TOKEN": "ghp_1"]
        let workflow = try #require(loaded.workflow)
        let only = try #require(try Planner.plan(workflow, options: options).plan)
        for plan in [try plan(Self.everything), only] {
            let read = try readBack(plan.compiled, keepingFileTasks: false)
            #expect(plan.tasks.contains { !$0.spec.inputs.isEmpty && !$0.spec.outputs.isEmpty }, "the test covers them")
            #expect(read.tasks.allSatisfy { $0.spec.inputs.isEmpty && $0.spec.outputs.isEmpty })
            #expect(read.tasks.map(\.inputs) == plan.tasks.map(\.inputs) && read.tasks.map(\.outputs) == plan.tasks.map(\.outputs))
            #expect(read.tasks.map(\.spec.needs) == plan.tasks.map(\.spec.needs))
            #expect(read.takenAsDone.map(\.outputs) == plan.takenAsDone.map(\.outputs))
            #expect(OnlySelection.requiredOutputs(of: read) == OnlySelection.requiredOutputs(of: plan))
        }
        #expect(!OnlySelection.requiredOutputs(of: only).isEmpty, "the test covers --only")
    }

    @Test(arguments: [true, false]) func bytesCutShortAreNeverAPlan(keepingFileTasks: Bool) throws {
        let bytes = try plan(Self.everything).compiled
        for length in 0..<bytes.count {
            #expect(throws: CompiledPlanError.self) { try readBack(Array(bytes.prefix(length)), keepingFileTasks: keepingFileTasks) }
        }
        #expect(throws: CompiledPlanError.self) { try readBack(bytes + [0], keepingFileTasks: keepingFileTasks) }
    }

    /// A run's read (`keepingFileTasks: false`) leaves the workflow's tasks out and reads each
    /// planned task's spec from the file's: every planned task is the one written.
    @Test func aPlanReadForARunHasEveryPlannedTaskButNotTheWorkflowsTasks() throws {
        for plan in [try plan(Self.everything), try plan(Self.everything, targets: ["pics"])] {
            let read = try readBack(plan.compiled, keepingFileTasks: false)
            #expect(read.workflow.tasks.isEmpty && !plan.workflow.tasks.isEmpty)
            var withoutTasks = plan.workflow
            withoutTasks.tasks = []
            #expect(read.workflow == withoutTasks)
            #expect(read.concurrency == plan.concurrency && read.waveCount == plan.waveCount)
            for (was, now) in zip(plan.tasks + plan.takenAsDone, read.tasks + read.takenAsDone) {
                #expect(now.spec == Self.forRun(was.spec) && now.fileIndex == was.fileIndex && now.needs == was.needs && now.wave == was.wave)
                #expect(now.action == was.action && now.inputs == was.inputs && now.outputs == was.outputs && now.environment == was.environment)
            }
            #expect(read.tasks.count == plan.tasks.count && read.takenAsDone.count == plan.takenAsDone.count)
        }
    }

    /// Each byte of a plan changed in turn: never a read out of bounds, and what a run's read
    /// (which reads a spec late, from where its length says) makes of the bytes is what the
    /// whole read makes of them, whenever both take them as a plan.
    @Test func aChangedByteReadForARunIsNoOtherPlanThanTheWholeRead() throws {
        let bytes = try plan("version: 1\ntasks:\n  a: {shell: echo a, outputs: [o]}\n  b: {needs: a, shell: [cat, o]}\n").compiled
        for index in bytes.indices {
            for change: UInt8 in [1, 0x7f, 0x80] {
                var damaged = bytes
                damaged[index] ^= change
                let forRun = try? readBack(damaged, keepingFileTasks: false)
                guard let forRun, let whole = try? readBack(damaged) else { continue }
                #expect(forRun.tasks.map(\.spec) == whole.tasks.map { Self.forRun($0.spec) }, "byte \(index) ^ \(change)")
                #expect(forRun.tasks.map(\.action) == whole.tasks.map(\.action), "byte \(index) ^ \(change)")
            }
        }
    }

    @Test func aTaskSpecThatDiffersFromTheFilesIsKeptWhole() throws {
        var plan = try plan(Self.everything)
        plan.tasks[0].spec.retries = 7
        let read = try readBack(plan.compiled)
        #expect(read.tasks[0].spec.retries == 7)
        #expect(read.workflow.tasks[plan.tasks[0].fileIndex].retries != 7)
    }

    /// A task's action is kept as a flag when it is its spec's as written (no `${...}` or
    /// relative path in it), and whole when planning changed it: both read back as planned.
    @Test func anActionAsWrittenIsSharedWithTheSpecAndAResolvedOneKeptWhole() throws {
        let plan = try plan(Self.everything)
        #expect(plan.tasks.contains { $0.action == $0.spec.action }, "the test covers an action as written")
        #expect(plan.tasks.contains { $0.action != $0.spec.action }, "the test covers a resolved action")
        let read = try readBack(plan.compiled)
        for (was, now) in zip(plan.tasks, read.tasks) {
            #expect(now.action == was.action, "\(was.id)")
            #expect(now.spec.action == was.spec.action, "\(was.id)")
        }
    }
}
