import FlowModel

/// What a run would do: the selected tasks in topological order, resolved.
package struct Plan: Sendable {
    package var workflow: Workflow
    /// The global limit, after `-j` and the number of CPUs are taken into account.
    package var concurrency: Int
    /// Topological order with file order as the tie-break.
    package var tasks: [PlannedTask]
    package var waveCount: Int
    /// The `--env` values whose names look secret (`SecretName`), by name: `--dry-run` prints
    /// `***` for an env entry that holds one.
    package var secretOverrides: [String: String] = [:]
    /// Under `run --only`: the needs of the selected tasks that are not selected, in file order,
    /// resolved (their outputs are checked before the run). Empty otherwise.
    package var takenAsDone: [PlannedTask] = []

    /// The tasks of each wave (1-based), in plan order.
    package var waves: [[PlannedTask]] {
        var waves = [[PlannedTask]](repeating: [], count: waveCount)
        for task in tasks { waves[task.wave - 1].append(task) }
        return waves
    }
}

/// One task as it would run: variables expanded, paths absolute.
///
/// Its fields live in one shared box, copied on write: taking a task out of `Plan.tasks`
/// (the up-to-date check, the engine, the sinks do it for each task) is one retain and
/// one release rather than one of each for every array and string inside (about 30; 10% of
/// a 20,000-task no-op's time went to them).
package struct PlannedTask: Sendable {
    private var fields: Fields

    init(
        spec: TaskSpec, fileIndex: Int, needs: [Int], wave: Int, workdir: String, workflowDirectory: String,
        environment: [EnvironmentEntry], action: Action, shown: ShownFields?
    ) {
        fields = Fields(
            spec: spec, fileIndex: fileIndex, needs: needs, wave: wave, workdir: workdir, workflowDirectory: workflowDirectory,
            environment: environment, action: action, shown: shown)
    }

    package var spec: TaskSpec {
        _read { yield fields.spec }
        _modify {
            unshare()
            yield &fields.spec
        }
    }
    /// Position in the file: the tie-break after priority.
    package var fileIndex: Int {
        _read { yield fields.fileIndex }
        _modify {
            unshare()
            yield &fields.fileIndex
        }
    }
    /// Positions in `Plan.tasks` of the tasks this one needs.
    package var needs: [Int] {
        _read { yield fields.needs }
        _modify {
            unshare()
            yield &fields.needs
        }
    }
    /// 1 for tasks that need nothing; otherwise one more than the latest wave among its needs.
    package var wave: Int {
        _read { yield fields.wave }
        _modify {
            unshare()
            yield &fields.wave
        }
    }
    package var workdir: String {
        _read { yield fields.workdir }
        _modify {
            unshare()
            yield &fields.workdir
        }
    }
    /// The folder of the workflow file: `${FLOWRUN_WORKFLOW_DIR}`, also exported to shell tasks.
    package var workflowDirectory: String {
        _read { yield fields.workflowDirectory }
        _modify {
            unshare()
            yield &fields.workflowDirectory
        }
    }
    /// Workflow env (with `--env` overrides) merged with the task's env; the process
    /// environment comes under it at run time.
    package var environment: [EnvironmentEntry] {
        _read { yield fields.environment }
        _modify {
            unshare()
            yield &fields.environment
        }
    }
    /// The action with `${...}` expanded and relative paths resolved against `workdir`.
    package var action: Action {
        _read { yield fields.action }
        _modify {
            unshare()
            yield &fields.action
        }
    }
    /// The workdir, action, inputs and outputs as `--dry-run` prints them, when a `${NAME}` in
    /// them took a secret value from `--env` or the process environment (`SecretName`): that
    /// value is `***` here.
    package var shown: ShownFields? {
        _read { yield fields.shown }
        _modify {
            unshare()
            yield &fields.shown
        }
    }
    /// `inputs` and `outputs` with `${...}` expanded and made absolute against `workdir`; globs stay globs.
    package var inputs: [String] {
        _read { yield fields.inputs }
        _modify {
            unshare()
            yield &fields.inputs
        }
    }
    package var outputs: [String] {
        _read { yield fields.outputs }
        _modify {
            unshare()
            yield &fields.outputs
        }
    }
    /// The words after `--` on the command line, for a task named there (`PlanningOptions.taskArguments`).
    package var arguments: [String] {
        _read { yield fields.arguments }
        _modify {
            unshare()
            yield &fields.arguments
        }
    }

    package var id: TaskID { fields.spec.id }

    /// Before a change: a box another copy of this task shares is copied first.
    private mutating func unshare() {
        if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
    }

    /// The box; changed only through `PlannedTask`, after `unshare()`, so that no copy of a
    /// task ever sees another's change (hence `@unchecked Sendable`: a shared box is read only).
    private final class Fields: @unchecked Sendable {
        var spec: TaskSpec
        var fileIndex: Int
        var needs: [Int]
        var wave: Int
        var workdir: String
        var workflowDirectory: String
        var environment: [EnvironmentEntry]
        var action: Action
        var shown: ShownFields?
        var inputs: [String] = []
        var outputs: [String] = []
        var arguments: [String] = []

        init(
            spec: TaskSpec, fileIndex: Int, needs: [Int], wave: Int, workdir: String, workflowDirectory: String,
            environment: [EnvironmentEntry], action: Action, shown: ShownFields?
        ) {
            self.spec = spec
            self.fileIndex = fileIndex
            self.needs = needs
            self.wave = wave
            self.workdir = workdir
            self.workflowDirectory = workflowDirectory
            self.environment = environment
            self.action = action
            self.shown = shown
        }

        func copy() -> Fields {
            let copy = Fields(
                spec: spec, fileIndex: fileIndex, needs: needs, wave: wave, workdir: workdir, workflowDirectory: workflowDirectory,
                environment: environment, action: action, shown: shown)
            copy.inputs = inputs
            copy.outputs = outputs
            copy.arguments = arguments
            return copy
        }
    }
}

/// A task's fields with the secret values they took shown as `***` (`PlannedTask.shown`); a
/// class, so that the many tasks without one pay a pointer.
package final class ShownFields: Sendable {
    package let workdir: String
    package let action: Action
    /// `inputs` and `outputs` as shown, entry for entry: `--dry-run` names a changed file with them.
    package let inputs: [String]
    package let outputs: [String]

    init(workdir: String, action: Action, inputs: [String], outputs: [String]) {
        self.workdir = workdir
        self.action = action
        self.inputs = inputs
        self.outputs = outputs
    }
}
