/// One task of a workflow, with defaults already applied.
package struct TaskSpec: Hashable, Sendable {
    package var id: TaskID
    /// Where the task's id is written.
    package var location: SourceLocation
    package var needs: [Located<TaskID>]
    package var when: When
    package var queue: String?
    package var priority: Priority
    package var retries: Int
    package var retryDelay: TimeSpan
    package var timeout: TimeSpan?
    package var continueOnError: Bool
    package var env: [EnvironmentEntry]
    /// Names in `env` whose values came from an included file's dotenv and are secret (the name
    /// looks secret, or the value took a secret's: `Workflow.dotenvSecretNames`): masked as the
    /// root file's dotenv values are.
    package var secretEnvironmentNames: Set<String> = []
    package var workdir: Located<String>?
    package var description: String?
    /// Files the task reads and writes, as written (paths and globs, `${VAR}` not yet expanded):
    /// what decides whether it is up to date.
    package var inputs: [Located<String>] = []
    package var outputs: [Located<String>] = []
    /// What runs a `shell` script; argv-form `shell` and other actions ignore it.
    package var interpreter: Interpreter = .sh
    package var action: Action

    package init(
        id: TaskID, location: SourceLocation, needs: [Located<TaskID>] = [], when: When = .success,
        queue: String? = nil, priority: Priority = .normal, retries: Int = 0,
        retryDelay: TimeSpan = .seconds(1), timeout: TimeSpan? = nil, continueOnError: Bool = false,
        env: [EnvironmentEntry] = [], workdir: Located<String>? = nil, description: String? = nil,
        action: Action
    ) {
        self.id = id
        self.location = location
        self.needs = needs
        self.when = when
        self.queue = queue
        self.priority = priority
        self.retries = retries
        self.retryDelay = retryDelay
        self.timeout = timeout
        self.continueOnError = continueOnError
        self.env = env
        self.workdir = workdir
        self.description = description
        self.action = action
    }
}

/// One `NAME: value` of an `env` map, kept in file order.
package struct EnvironmentEntry: Hashable, Sendable {
    package var name: String
    package var value: String
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Whether `name` is a variable name a file or `--env` may set: letters, digits and `_`, not
    /// starting with a digit (POSIX's portable names; also what a shell can read back). Others,
    /// such as bash's exported functions `BASH_FUNC_ls%%`, could change how a task's shell runs.
    package static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        }
    }
}
