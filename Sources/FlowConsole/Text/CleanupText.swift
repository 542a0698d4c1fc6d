import FlowModel

/// The console line of `workflow.cleanup`: a cancelled run still runs its `when: always` tasks.
package enum CleanupText {
    /// At most this many task names; the rest are counted.
    static let namesShown = 10

    /// `interrupted (SIGINT): running cleanup tasks (when: always): teardown; Ctrl-C again kills them`
    package static func line(reason: String, tasks: [TaskID]) -> String {
        var names = tasks.prefix(namesShown).joined(separator: ", ")
        if tasks.count > namesShown { names += " and \(tasks.count - namesShown) more" }
        return "\(ConsoleText.sanitized(reason)): running cleanup tasks (when: always): \(names); Ctrl-C again kills them"
    }
}
