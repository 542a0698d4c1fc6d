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
    /// The names the workflow's fields interpolate (`${NAME}`), sorted: all the plan can have
    /// read of the process environment (`PlanCache` keeps a plan with their values). Not in
    /// `compiled`: a kept plan is read only while they are as they were.
    package var interpolatedNames: [String] = []

    /// The tasks of each wave (1-based), in plan order.
    package var waves: [[PlannedTask]] {
        var waves = [[PlannedTask]](repeating: [], count: waveCount)
        for task in tasks { waves[task.wave - 1].append(task) }
        return waves
    }
}

/// One task as it would run: variables expanded, paths absolute.
package struct PlannedTask: Sendable {
    package var spec: TaskSpec
    /// Position in the file: the tie-break after priority.
    package var fileIndex: Int
    /// Positions in `Plan.tasks` of the tasks this one needs.
    package var needs: [Int]
    /// 1 for tasks that need nothing; otherwise one more than the latest wave among its needs.
    package var wave: Int
    package var workdir: String
    /// The folder of the workflow file: `${FLOWRUN_WORKFLOW_DIR}`, also exported to shell tasks.
    package var workflowDirectory: String
    /// Workflow env (with `--env` overrides) merged with the task's env; the process
    /// environment comes under it at run time.
    package var environment: [EnvironmentEntry]
    /// The action with `${...}` expanded and relative paths resolved against `workdir`.
    package var action: Action
    /// The workdir, action, inputs and outputs as `--dry-run` prints them, when a `${NAME}` in
    /// them took a secret value from `--env` or the process environment (`SecretName`): that
    /// value is `***` here.
    package var shown: ShownFields?
    /// `inputs` and `outputs` with `${...}` expanded and made absolute against `workdir`; globs stay globs.
    package var inputs: [String] = []
    package var outputs: [String] = []
    /// The words after `--` on the command line, for a task named there (`PlanningOptions.taskArguments`).
    package var arguments: [String] = []

    package var id: TaskID { spec.id }
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
