import FlowModel

/// `flowrun FILE TASK... -- ARGS...`: ARGS go to the named tasks, not to their needs, as
/// `npm run test -- ARGS` or go-task's `CLI_ARGS`: as a script's positional parameters (`"$@"`),
/// after an argv list, and as `FLOWRUN_ARGS` (shell-quoted) in their env.
enum TaskArguments {
    static let variable = "FLOWRUN_ARGS"

    /// `tasks` with `arguments` given to those named in `targets` (matrix names already expanded).
    ///
    /// - Throws: `PlanningError.argumentsWithoutCommand` when no task is named, or a named task
    ///   runs no command (a download, a group): the arguments would go nowhere.
    static func give(_ arguments: [String], to targets: [TaskID], in tasks: [PlannedTask]) throws -> [PlannedTask] {
        guard !arguments.isEmpty else { return tasks }
        guard !targets.isEmpty else { throw PlanningError.argumentsWithoutCommand(task: nil, kind: nil) }
        let named = Set(targets)
        var tasks = tasks
        for index in tasks.indices where named.contains(tasks[index].id) {
            guard case .shell = tasks[index].action else {
                throw PlanningError.argumentsWithoutCommand(task: tasks[index].id, kind: tasks[index].action.kind)
            }
            tasks[index].arguments = arguments
            tasks[index].environment.removeAll { $0.name == variable }
            tasks[index].environment.append(EnvironmentEntry(name: variable, value: quoted(arguments)))
        }
        return tasks
    }

    /// The words as a shell reads them back: `eval "set -- $FLOWRUN_ARGS"`. Each word that is
    /// not plainly safe is put in single quotes, a `'` in it written `'\''`.
    static func quoted(_ words: [String]) -> String {
        words.map { word in
            let safe =
                !word.isEmpty
                && word.utf8.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                        true
                    default:
                        "-_./=:,+@%".utf8.contains(byte)
                    }
                }
            return safe ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
        }.joined(separator: " ")
    }
}
