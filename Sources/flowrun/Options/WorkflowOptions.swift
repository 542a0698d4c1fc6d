import ArgumentParser
import FlowConsole
import FlowModel
import FlowPlanning
import Foundation

/// Options that change how a workflow file is read and planned, shared by the commands.
struct WorkflowOptions: ParsableArguments {
    @Option(
        name: .customLong("env"), help: ArgumentHelp("Set a workflow variable, overriding the file's env and the tasks' (repeatable).", valueName: "NAME=VALUE")
    )
    var assignments: [EnvironmentAssignment] = []

    @Option(
        name: [.customShort("d"), .customLong("dir")],
        help: ArgumentHelp("Look for flowrun.yaml from this folder up, instead of the current one; a relative FILE is read from it.", valueName: "DIR"),
        completion: .directory)
    var directory: String?

    /// A name outside the file's rule is refused: `--env 'BASH_FUNC_ls%%=() { ...; }'` would
    /// replace `ls` in every bash a task starts.
    func validate() throws {
        for name in assignments.map(\.entry.name) where !EnvironmentEntry.isValidName(name) {
            throw ValidationError(
                "invalid environment variable name '\(VisibleText.escaped(name))' in --env: use letters, digits and _, not starting with a digit")
        }
    }

    /// The file of `[FILE] [TASK...]`, and its tasks: FILE read from --dir; with no FILE, the one
    /// `WorkflowFinder` finds. A first word that is no file, no path and no .yaml name, but a
    /// task id, is the first task of the file found, as `task build` is for go-task users.
    func locate(file: String?, tasks: [String]) throws -> (file: String, tasks: [String]) {
        guard let file else { return (try foundFile(), tasks) }
        let path = resolved(file)
        let looksLikeTask =
            file.isValidTaskReference && !file.hasSuffix(".yaml") && !file.hasSuffix(".yml") && !FileManager.default.fileExists(atPath: path)
        if looksLikeTask, let found = try? foundFile() { return (found, [file] + tasks) }
        return (path, tasks)
    }

    /// FILE as given, or read from --dir when it is relative.
    func resolved(_ file: String) -> String {
        guard let directory, !file.isAbsolutePath else { return file }
        return (directory.hasSuffix("/") ? directory : directory + "/") + file
    }

    /// The file `WorkflowFinder` finds; named on stderr when it is in a parent folder, so that a
    /// run never starts from a file you did not expect (as make says "Entering directory").
    func foundFile() throws -> String {
        let found = try WorkflowFinder.find(from: directory)
        if !found.isInStartingFolder {
            StandardError.write("flowrun: using \(VisibleText.escaped(found.path))\n")
        }
        return found.path
    }

    func planningOptions(targets: [TaskID] = [], concurrency: Int? = nil) -> PlanningOptions {
        var options = PlanningOptions()
        options.targets = targets
        options.environmentOverrides = assignments.map(\.entry)
        options.processEnvironment = ProcessInfo.processInfo.environment
        options.concurrency = concurrency
        options.processorCount = ProcessInfo.processInfo.activeProcessorCount
        return options
    }
}
