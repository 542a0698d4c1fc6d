import FlowLoading
import FlowModel
import FlowPlanning

/// Plans and tasks for tests, written as a workflow file is.
package enum PlannedTasks {
    package struct Invalid: Error, CustomStringConvertible {
        package var description: String
    }

    /// The tasks of `yaml` (a whole workflow), planned in `directory`.
    package static func from(_ yaml: String, directory: String = "/tmp") throws -> [PlannedTask] {
        try plan(yaml, directory: directory).tasks
    }

    /// The plan of `yaml` (a whole workflow), planned in `directory`, every task selected.
    package static func plan(_ yaml: String, directory: String = "/tmp") throws -> Plan {
        let loaded = WorkflowLoader.decode(Array(yaml.utf8), file: "w.yaml", directory: directory, defaultName: "w")
        guard !loaded.diagnostics.hasErrors, let workflow = loaded.workflow else {
            throw Invalid(description: "\(loaded.diagnostics)")
        }
        guard let plan = try Planner.plan(workflow, options: PlanningOptions()).plan else {
            throw Invalid(description: "the workflow does not plan")
        }
        return plan
    }

    /// One shell task with the given fields (`retries: 2, timeout: 1s`, as in the file).
    package static func one(_ fields: String) throws -> PlannedTask {
        let tasks = try from(
            """
            version: 1
            tasks:
              t: {\(fields.isEmpty ? "" : fields + ", ")shell: "true"}
            """)
        return tasks[0]
    }
}
