import Foundation

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

    /// Refuses a word after `--` that is not UTF-8 (`$'\xff'`, a Latin-1 file name), naming
    /// its place: Swift reads the command line as text, with U+FFFD for such bytes, and the
    /// task would get that rather than the bytes. `argv` is the command line as the process got
    /// it; the words after `--` end it.
    static func refuseNotUTF8(in argv: [[UInt8]] = rawCommandLine) throws(CommandFailure) {
        guard !arguments.isEmpty else { return }
        for (index, word) in argv.suffix(arguments.count).enumerated() where String(validating: word, as: UTF8.self) == nil {
            throw CommandFailure(
                "argument \(index + 1) after '--' is not UTF-8 ('\(escaped(word))'): flowrun hands arguments on as text and would "
                    + "change these bytes; let the task find such a name itself (a glob, a file listing it)")
        }
    }

    /// The command line's bytes, from `CommandLine.unsafeArgv`.
    private static var rawCommandLine: [[UInt8]] {
        (0..<Int(CommandLine.argc)).map { index in
            guard let word = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeRawBufferPointer(start: word, count: strlen(word)))
        }
    }

    /// ASCII as it is (a backslash doubled), any other byte as `\xHH`.
    private static func escaped(_ word: [UInt8]) -> String {
        word.map { byte in
            switch byte {
            case UInt8(ascii: "\\"): "\\\\"
            case 0x20..<0x7F: String(UnicodeScalar(byte))
            default: (byte < 0x10 ? "\\x0" : "\\x") + String(byte, radix: 16, uppercase: true)
            }
        }.joined()
    }
}
