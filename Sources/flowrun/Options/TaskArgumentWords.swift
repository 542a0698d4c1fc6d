/// `flowrun [run] FILE TASK... -- ARGS...`: the words after `--`, taken off the command line
/// before ArgumentParser reads it (which would take them for more tasks), for `RunCommand`.
enum TaskArgumentWords {
    /// Set once, by `split`, before any command runs; read by `RunCommand.run()` on the same thread.
    nonisolated(unsafe) private(set) static var arguments: [String] = []

    /// The command line without the task arguments of `run` (the default command), which are kept.
    static func split(_ words: [String]) -> [String] {
        // A shell's completion callback (`flowrun ---completion run -- WORDS`) keeps its `--`.
        if words.first == "---completion" { return words }
        let commands = Flowrun.configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        if let first = words.first, first != "run", commands.contains(first) { return words }
        guard let terminator = words.firstIndex(of: "--") else { return words }
        arguments = Array(words[(terminator + 1)...])
        return Array(words[..<terminator])
    }
}
