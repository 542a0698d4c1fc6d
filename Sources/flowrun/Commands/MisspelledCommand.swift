import ArgumentParser
import FlowModel
import Foundation

/// `flowrun valdate x.yaml`: the first word is taken as the workflow FILE of `run` (the default
/// subcommand), and would be reported as a file that cannot be read. When it names no file and
/// is close to a command, the command is what was meant, as git's "did you mean" says.
enum MisspelledCommand {
    /// Throws "did you mean 'validate'?" (exit 2) for a first word like `valdate`; nothing for
    /// an option, an existing file, or a word close to no command.
    static func check(_ arguments: [String]) throws {
        guard let word = arguments.first, !word.hasPrefix("-"), !word.contains("/"), !word.contains("."),
            !FileManager.default.fileExists(atPath: word)
        else { return }
        let commands = Flowrun.configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard !commands.contains(word), let suggestion = Spelling.suggestion(for: word, among: commands) else { return }
        // `flowrun lint` runs the task lint of the flowrun.yaml found, however close it is to `list`.
        if let found = try? WorkflowFinder.find(from: nil), WorkflowCompletion.taskIDs(in: found.path).contains(word) { return }
        throw CommandFailure("'\(word)' is neither a command nor a file; did you mean '\(suggestion)'?")
    }
}
