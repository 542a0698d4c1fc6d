/// A whole workflow file, decoded and checked for structure.
public struct Workflow: Hashable, Sendable {
    /// The path of the file as the user gave it.
    public var file: String
    /// The absolute folder of the file: the default `workdir` and `${FLOWRUN_WORKFLOW_DIR}`.
    public var directory: String
    public var name: String
    /// nil: the number of CPUs.
    public var concurrency: Int?
    public var failFast: Bool
    public var env: [EnvironmentEntry]
    public var queues: [QueueSpec]
    /// In file order, which is the tie-break order everywhere.
    public var tasks: [TaskSpec]

    public init(
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
public struct QueueSpec: Hashable, Sendable {
    public var name: String
    public var concurrency: Int
    public var location: SourceLocation
    public init(name: String, concurrency: Int, location: SourceLocation) {
        self.name = name
        self.concurrency = concurrency
        self.location = location
    }
}
