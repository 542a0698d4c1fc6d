import FlowModel
import Foundation

/// ArgumentParser's usage errors with flowrun's own did-you-mean (`Spelling`, the one that
/// validation uses for keys, task ids and queues) in place of the parser's: `--dry-rn` gets
/// "did you mean '--dry-run'?", and a value not among an option's choices (`--events plian`)
/// the closest choice.
enum ParserSuggestion {
    /// `message` (the parser's, `Error: ...`) with the suggestion flowrun makes, if any, in the
    /// parser's words; `arguments` are the command line's, for the command whose options count.
    static func mended(_ message: String, arguments: [String]) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.first else { return message }
        if let option = unknownOption(in: first) {
            let suggestion = option.hasPrefix("--") ? Spelling.suggestion(for: option, among: longOptions(of: command(in: arguments))) : nil
            lines[0] = "Error: Unknown option '\(option)'" + (suggestion.map { ". Did you mean '\($0)'?" } ?? "")
        } else if let (value, choices) = invalidChoice(in: first), let suggestion = Spelling.suggestion(for: value, among: choices) {
            lines[0] = String(first.dropLast(first.hasSuffix(".") ? 1 : 0)) + ". Did you mean '\(suggestion)'?"
        }
        return lines.joined(separator: "\n")
    }

    /// `--dry-rn` of `Error: Unknown option '--dry-rn'` (with or without the parser's own suggestion).
    static func unknownOption(in line: String) -> String? {
        let head = "Error: Unknown option '"
        guard line.hasPrefix(head), let end = line.dropFirst(head.count).firstIndex(of: "'") else { return nil }
        return String(line[line.index(line.startIndex, offsetBy: head.count)..<end])
    }

    /// The value and the choices of `Error: The value 'plian' is invalid for '--events
    /// <events>'. Please provide one of 'human', 'plain' and 'jsonl'.`
    static func invalidChoice(in line: String) -> (value: String, choices: [String])? {
        let head = "Error: The value '"
        guard line.hasPrefix(head), let list = line.range(of: "Please provide one of ") else { return nil }
        let rest = line.dropFirst(head.count)
        guard let end = rest.firstIndex(of: "'") else { return nil }
        let choices = line[list.upperBound...].split(separator: "'", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        return choices.isEmpty ? nil : (String(rest[..<end]), choices)
    }

    /// The subcommand the arguments name first (`DirectoryFirst` has put it there), or `run`.
    static func command(in arguments: [String]) -> String {
        let names = Flowrun.configuration.subcommands.compactMap { $0.configuration.commandName }
        return arguments.first.flatMap { names.contains($0) ? $0 : nil } ?? "run"
    }

    /// `--NAME` of every long option and flag of `command`, hidden ones included, and the root's.
    static func longOptions(of command: String) -> [String] {
        guard let data = Flowrun._dumpHelp().data(using: .utf8),
            let tool = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let root = tool["command"] as? [String: Any]
        else { return [] }
        let subcommands = root["subcommands"] as? [[String: Any]] ?? []
        let chosen = subcommands.first { $0["commandName"] as? String == command }
        return ([root] + (chosen.map { [$0] } ?? [])).flatMap { info -> [String] in
            let arguments = info["arguments"] as? [[String: Any]] ?? []
            return arguments.flatMap { argument -> [String] in
                (argument["names"] as? [[String: Any]] ?? []).compactMap { name in
                    guard name["kind"] as? String == "long", let text = name["name"] as? String else { return nil }
                    return "--" + text
                }
            }
        } + ["--help", "--version"]
    }
}
