/// The words of a command line being completed, up to the word under the cursor: its
/// positional words (FILE, TASK...) and its `-d/--dir` (and `logs`' `-f/--file`).
struct CommandLineWords {
    var positionals: [String] = []
    var directory: String?
    var file: String?

    /// The options that take a value, whose value is no positional word.
    private static let valued: Set<String> = [
        "-d", "--dir", "-j", "--concurrency", "--env", "--grace", "--events", "--events-file", "--junit", "--format", "--report-html", "--trace",
        "-f", "--file",
    ]
    private static let subcommands: Set<String> = ["run", "validate", "graph", "list", "logs"]

    init(_ words: [String], before index: Int) {
        var rest = words.prefix(max(0, min(index, words.count))).dropFirst()  // the command's own name
        if let first = rest.first, Self.subcommands.contains(first) { rest = rest.dropFirst() }
        var optionsEnded = false
        while let word = rest.popFirst() {
            if optionsEnded || !word.hasPrefix("-") || word == "-" {
                positionals.append(Self.unquoted(word))
            } else if word == "--" {
                optionsEnded = true
            } else if let equals = word.firstIndex(of: "="), Self.valued.contains(String(word[..<equals])) {
                if word.hasPrefix("--dir=") { directory = Self.unquoted(String(word[word.index(after: equals)...])) }
                if word.hasPrefix("--file=") { file = Self.unquoted(String(word[word.index(after: equals)...])) }
            } else if Self.valued.contains(word) {
                // bash splits `--dir=sub` at the `=` into three words.
                if rest.first == "=" { rest = rest.dropFirst() }
                let value = rest.popFirst()
                if word == "-d" || word == "--dir" { directory = value.map(Self.unquoted) }
                if word == "-f" || word == "--file" { file = value.map(Self.unquoted) }
            } else if word.hasPrefix("-d"), !word.hasPrefix("--") {
                directory = Self.unquoted(String(word.dropFirst(2)))
            }
        }
    }

    /// The word as the shell would pass it to flowrun: quotes and backslashes removed (the
    /// callback gets words verbatim).
    private static func unquoted(_ word: String) -> String {
        guard word.contains(where: { "'\"\\".contains($0) }) else { return word }
        var result = ""
        var escaped = false
        for character in word {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character != "'" && character != "\"" {
                result.append(character)
            }
        }
        return result
    }
}
