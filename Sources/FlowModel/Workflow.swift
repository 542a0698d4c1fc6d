/// A whole workflow file, decoded and checked for structure.
package struct Workflow: Hashable, Sendable {
    /// The path of the file as the user gave it.
    package var file: String
    /// The absolute folder of the file: the default `workdir` and `${FLOWRUN_WORKFLOW_DIR}`.
    package var directory: String
    package var name: String
    /// nil: the number of CPUs.
    package var concurrency: Int?
    package var failFast: Bool
    package var env: [EnvironmentEntry]
    /// `dotenv:` as written (`?path`: may be missing), and what those files set, in order.
    package var dotenvFiles: [Located<String>] = []
    package var dotenv: [EnvironmentEntry] = []
    package var queues: [QueueSpec]
    /// In file order, which is the tie-break order everywhere; a task with a `matrix` is one
    /// task per combination, in the matrix's order.
    package var tasks: [TaskSpec]
    /// The ids of each matrix task's combinations, by the task's name: `needs: test` and
    /// `flowrun FILE test` mean all of them.
    package var matrixCombinations: [TaskID: [TaskID]] = [:]

    package init(
        file: String, directory: String, name: String, concurrency: Int? = nil, failFast: Bool = true,
        env: [EnvironmentEntry] = [], queues: [QueueSpec] = [], tasks: [TaskSpec]
    ) {
        self.file = file
        self.directory = directory
        self.name = name
        self.concurrency = concurrency
        self.failFast = failFast
        self.env = env
        self.queues = queues
        self.tasks = tasks
    }
}

/// A named queue: a resource pool with its own limit, inside the global one.
package struct QueueSpec: Hashable, Sendable {
    package var name: String
    package var concurrency: Int
    package var location: SourceLocation
    package init(name: String, concurrency: Int, location: SourceLocation) {
        self.name = name
        self.concurrency = concurrency
        self.location = location
    }
}
