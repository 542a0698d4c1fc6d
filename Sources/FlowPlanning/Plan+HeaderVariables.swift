import FlowModel

/// Whether a download header of the plan takes a variable (`PlanCache` does not keep such a plan).
extension Plan {
    /// Whether a download's header value, as written, refers to a `${NAME}`: its value then came
    /// from the environment, `--env`, a dotenv file or the workflow's env, under any name (a
    /// token under a plain name like `GH` is not masked). Headers are never printed, so no file
    /// may hold such a value in clear; one written in the workflow is in that file already.
    package var headersTakeVariables: Bool {
        func takesVariable(_ task: PlannedTask) -> Bool {
            guard case .download(let download) = task.spec.action else { return false }
            return download.headers.contains { !Interpolation.names(in: $0.value.value).isEmpty }
        }
        return tasks.contains(where: takesVariable) || takenAsDone.contains(where: takesVariable)
    }
}
