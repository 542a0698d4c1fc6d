import Foundation

/// How a GitHub Actions runner reads one line of a step's output: as a workflow command, or as
/// text.
///
/// The runner's rules (actions/runner, `ActionCommand`): after leading white space, a line
/// `::NAME PROPERTIES::DATA`; or, anywhere in the line, the older `##[NAME PROPERTIES]DATA`.
/// `NAME` runs up to the first space and counts only if it is a command the runner knows, in
/// any case. While commands are stopped (`::stop-commands::TOKEN`), the only command is `TOKEN`,
/// which resumes them.
package enum GitHubCommandLine {
    /// The commands a runner knows.
    static let commands: Set<String> = [
        "add-mask", "add-matcher", "add-path", "debug", "echo", "endgroup", "error", "group", "notice",
        "remove-matcher", "save-state", "set-env", "set-output", "stop-commands", "warning",
    ]

    /// The name (lower case) and data of the command the runner reads in `line`, or nil for
    /// text. `stopToken`: the token that resumes stopped commands, then the only command read.
    ///
    /// By Unicode scalars, as the runner looks for `' '`, `]` and `::` one UTF-16 unit at a
    /// time: by Characters, a space or `]` with a combining mark after it is one Character, and
    /// `::endgroup \u{301}::` went through as text where the runner reads `endgroup`.
    package static func command(in line: String, stopToken: String? = nil) -> (name: String, data: Substring)? {
        let isCommand: (String) -> Bool = { name in
            if let stopToken { return name.lowercased() == stopToken.lowercased() }
            return commands.contains(name.lowercased())
        }
        let scalars = line.unicodeScalars
        let colons = "::".unicodeScalars
        let trimmed = scalars.drop { $0.properties.isWhitespace }
        if trimmed.starts(with: colons), let end = trimmed.dropFirst(2).firstRange(of: colons) {
            let name = String(Substring(trimmed[scalars.index(trimmed.startIndex, offsetBy: 2)..<end.lowerBound].prefix { $0 != " " }))
            if isCommand(name) { return (name.lowercased(), Substring(scalars[end.upperBound...])) }
        }
        if let start = scalars.firstRange(of: "##[".unicodeScalars), let close = scalars[start.upperBound...].firstIndex(of: "]") {
            let name = String(Substring(scalars[start.upperBound..<close].prefix { $0 != " " }))
            if isCommand(name) { return (name.lowercased(), Substring(scalars[scalars.index(after: close)...])) }
        }
        return nil
    }

    /// Whether `line` might be a command: the fast check, before `command(in:)`.
    static func mayBeCommand(_ line: some Collection<UInt8>) -> Bool {
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in line {
            if byte == UInt8(ascii: ":") && previous.1 == UInt8(ascii: ":") { return true }
            if byte == UInt8(ascii: "[") && previous == (UInt8(ascii: "#"), UInt8(ascii: "#")) { return true }
            previous = (previous.1, byte)
        }
        return false
    }

    /// Whether a step's `::stop-commands::TOKEN` can be resumed by `::TOKEN::` and is one the
    /// runner accepts: a name of plain characters, not one of its commands.
    static func isResumable(_ token: Substring) -> Bool {
        !token.isEmpty && !commands.contains(token.lowercased()) && token.lowercased() != "pause-logging"
            && token.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) }
    }

    /// A fresh token for flowrun's own `::stop-commands::`, which no task can guess.
    static func freshToken() -> String {
        "flowrun-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// Appends `line` and its newline to `text` so that the runner shows it as text: between
    /// `::stop-commands::TOKEN` and `::TOKEN::` if it would be read as a command.
    static func appendAsText(_ line: some Collection<UInt8>, token: String, to text: inout [UInt8]) {
        guard mayBeCommand(line), command(in: String(decoding: line, as: UTF8.self)) != nil else {
            text += line
            text.append(UInt8(ascii: "\n"))
            return
        }
        text += "::stop-commands::\(token)\n".utf8
        text += line
        text += "\n::\(token)::\n".utf8
    }

    /// flowrun's own `text` (whole lines) for a step's output: each line the runner would read
    /// as a command written as text, between `::stop-commands::TOKEN` (a fresh token unless
    /// given) and its resume.
    package static func asText(_ text: String, token: String? = nil) -> String {
        guard mayBeCommand(text.utf8) else { return text }
        var shown: [UInt8] = []
        appendLinesAsText(Array(text.utf8), token: token ?? freshToken(), to: &shown)
        return String(decoding: shown, as: UTF8.self)
    }

    /// Appends each of flowrun's own `lines` (each ending in a newline) as `appendAsText` does.
    static func appendLinesAsText(_ lines: [UInt8], token: String, to text: inout [UInt8]) {
        guard mayBeCommand(lines) else {
            text += lines
            return
        }
        for line in lines.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
            appendAsText(line, token: token, to: &text)
        }
    }
}
