import FlowModel

/// The fields a task shares with `defaults`; nil means "not set here".
struct TaskFields {
    var queue: Located<String>?
    var priority: Priority?
    var retries: Int?
    var retryDelay: TimeSpan?
    var timeout: TimeSpan?
    var continueOnError: Bool?
    var env: [EnvironmentEntry]?
    var workdir: Located<String>?
    var description: String?
    var interpreter: Located<Interpreter>?

    static let keys: Set<String> = [
        "queue", "priority", "retries", "retry_delay", "timeout", "continue_on_error", "env", "workdir", "description",
        "interpreter",
    ]

    /// The task's own fields over the defaults; `env` merges, the task's names winning.
    func over(_ defaults: TaskFields) -> TaskFields {
        var result = TaskFields(
            queue: queue ?? defaults.queue, priority: priority ?? defaults.priority, retries: retries ?? defaults.retries,
            retryDelay: retryDelay ?? defaults.retryDelay, timeout: timeout ?? defaults.timeout,
            continueOnError: continueOnError ?? defaults.continueOnError, env: nil,
            workdir: workdir ?? defaults.workdir, description: description ?? defaults.description,
            interpreter: interpreter ?? defaults.interpreter)
        let own = env ?? []
        if let inherited = defaults.env, !inherited.isEmpty {
            let names = Set(own.map(\.name))
            result.env = inherited.filter { !names.contains($0.name) } + own
        } else {
            result.env = own
        }
        return result
    }
}
