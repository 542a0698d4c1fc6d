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
    /// The process environment's names the dotenv files' `${NAME}` looked up, set or not
    /// (included files' too): a plan depends on them as on the names its fields interpolate.
    package var dotenvEnvironmentNames: [String] = []
    /// dotenv keys whose values took a secret-looking variable's (`A=${TOKEN}`): masked as it is.
    package var dotenvSecretNames: [String] = []
    /// `include:` as written: each other file's tasks join this one's as `NAMESPACE:ID`.
    package var includes: [Include] = []
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

/// One entry of `include:`: a namespace and the file whose tasks it holds.
package struct Include: Hashable, Sendable {
    package var namespace: String
    package var path: Located<String>
    package init(namespace: String, path: Located<String>) {
        self.namespace = namespace
        self.path = path
    }
}
