import FlowModel

/// What `${NAME}` in a dotenv value can see, as docker compose's dotenv reader has it: the keys
/// set by earlier lines and earlier files, then the process environment.
struct DotenvScope {
    var environment: [String: String]
    /// The keys set so far, with their values.
    var defined: [String: String] = [:]
    /// Keys whose values took a secret-looking variable's value: masked as that variable is.
    var secretNames: Set<String> = []
    /// Names looked up in the process environment, set or not: the plan cache keys on them.
    var environmentNames: Set<String> = []

    init(environment: [String: String] = [:]) {
        self.environment = environment
    }

    /// `name`'s value (nil: unset); `tookSecret` set when it is a secret's.
    mutating func value(of name: String, tookSecret: inout Bool) -> String? {
        if let value = defined[name] {
            if secretNames.contains(name) || SecretName.looksSecret(name) { tookSecret = true }
            return value
        }
        environmentNames.insert(name)
        guard let value = environment[name] else { return nil }
        if SecretName.looksSecret(name) { tookSecret = true }
        return value
    }
}

/// Compose's interpolation of an unquoted or double-quoted dotenv value: `$NAME`, `${NAME}`,
/// `${NAME:-default}`, `${NAME-default}`, `${NAME:+alt}`, `${NAME+alt}`, `${NAME:?message}` and
/// `${NAME?message}` (the word itself expanded), `$$` for a `$`. A `$` before anything else is
/// kept, as the shell keeps it. In a double-quoted value the escapes `\n`, `\t`, `\r`, `\\`,
/// `\"` and `\$` are read in the same pass, so that `\$` is a `$` that expands nothing.
struct DotenvInterpolation {
    let file: String
    let doubleQuoted: Bool
    var scope: DotenvScope
    var tookSecret = false

    struct Failure: Error {
        let diagnostic: Diagnostic
    }

    /// `raw`, expanded; it starts at `line`:`column` of `file` (errors name the `$`).
    mutating func expand(_ raw: Substring, line: Int, column: Int) throws(Failure) -> String {
        var output = ""
        var index = raw.startIndex
        var line = line
        var column = column
        func advance(_ count: Int = 1) {
            for _ in 0..<count where index < raw.endIndex {
                if raw[index] == "\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
                index = raw.index(after: index)
            }
        }
        while index < raw.endIndex {
            let character = raw[index]
            if doubleQuoted, character == "\\" {
                let next = raw.index(after: index)
                guard next < raw.endIndex else {
                    output.append("\\")
                    advance()
                    continue
                }
                switch raw[next] {
                case "n": output.append("\n")
                case "t": output.append("\t")
                case "r": output.append("\r")
                case "\\", "\"", "$": output.append(raw[next])
                default: output += "\\" + String(raw[next])
                }
                advance(2)
                continue
            }
            guard character == "$" else {
                output.append(character)
                advance()
                continue
            }
            let at = SourceLocation(file: file, line: line, column: column)
            let next = raw.index(after: index)
            guard next < raw.endIndex else {
                output.append("$")
                advance()
                continue
            }
            if raw[next] == "$" {
                output.append("$")
                advance(2)
            } else if raw[next] == "{" {
                let start = raw.index(after: next)
                guard let end = closingBrace(in: raw[start...]) else { throw Failure(diagnostic: Diagnostic(.dotenvUnclosedBrace, at: at)) }
                let body = raw[start..<end]
                let bodyColumn = column + 2
                output += try substitute(body, at: at, line: line, column: bodyColumn)
                advance(raw.distance(from: index, to: end) + 1)
            } else if Self.startsName(raw[next]) {
                var end = raw.index(after: next)
                while end < raw.endIndex, Self.continuesName(raw[end]) { end = raw.index(after: end) }
                output += scope.value(of: String(raw[next..<end]), tookSecret: &tookSecret) ?? ""
                advance(raw.distance(from: index, to: end))
            } else {
                output.append("$")
                advance()
            }
        }
        return output
    }

    /// The `}` that closes a `${`, nested `${...}` in a word skipped (and `\}` in double quotes).
    private func closingBrace(in text: Substring) -> Substring.Index? {
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if doubleQuoted, character == "\\" {
                index = text.index(after: index)
                if index < text.endIndex { index = text.index(after: index) }
                continue
            }
            if character == "$", text.index(after: index) < text.endIndex, text[text.index(after: index)] == "{" {
                depth += 1
                index = text.index(index, offsetBy: 2)
                continue
            }
            if character == "}" {
                if depth == 0 { return index }
                depth -= 1
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// `NAME`, or `NAME` then an operator and its word: the braces' contents.
    private mutating func substitute(_ body: Substring, at: SourceLocation, line: Int, column: Int) throws(Failure) -> String {
        var end = body.startIndex
        if end < body.endIndex, Self.startsName(body[end]) {
            end = body.index(after: end)
            while end < body.endIndex, Self.continuesName(body[end]) { end = body.index(after: end) }
        }
        let name = String(body[..<end])
        var rest = body[end...]
        guard !name.isEmpty else { throw Failure(diagnostic: Diagnostic(.dotenvBadSubstitution(String(body)), at: at)) }
        var secret = false
        let value = scope.value(of: name, tookSecret: &secret)
        if rest.isEmpty {
            tookSecret = tookSecret || secret
            return value ?? ""
        }
        let colon = rest.first == ":"
        if colon { rest = rest.dropFirst() }
        guard let operation = rest.first, "-+?".contains(operation) else {
            throw Failure(diagnostic: Diagnostic(.dotenvBadSubstitution(String(body)), at: at))
        }
        let word = rest.dropFirst()
        let wordColumn = column + body.distance(from: body.startIndex, to: word.startIndex)
        // With `:`, an empty value counts as unset.
        let isSet = colon ? !(value ?? "").isEmpty : value != nil
        switch operation {
        case "-":
            if isSet {
                tookSecret = tookSecret || secret
                return value ?? ""
            }
            return try expand(word, line: line, column: wordColumn)
        case "+":
            return isSet ? try expand(word, line: line, column: wordColumn) : ""
        default:
            if isSet {
                tookSecret = tookSecret || secret
                return value ?? ""
            }
            let message = try expand(word, line: line, column: wordColumn)
            throw Failure(diagnostic: Diagnostic(.dotenvRequired(name, message: message, unset: value == nil), at: at))
        }
    }

    static func startsName(_ character: Character) -> Bool {
        character == "_" || (character.isASCII && character.isLetter)
    }

    static func continuesName(_ character: Character) -> Bool {
        startsName(character) || (character.isASCII && character.isNumber)
    }
}

extension Diagnostic.Message {
    static let dotenvUnclosedBrace = Self("'${' is never closed by '}'", hint: "write '$$' for a literal '$'")
    static func dotenvBadSubstitution(_ body: String) -> Self {
        Self(
            "bad substitution '${\(body)}': expected ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:+alt}, ${NAME+alt}, ${NAME:?message} or ${NAME?message}",
            hint: "write '$$' for a literal '$'")
    }
    static func dotenvRequired(_ name: String, message: String, unset: Bool) -> Self {
        Self("required variable \(name) is \(unset ? "not set" : "empty")" + (message.isEmpty ? "" : ": \(message)"))
    }
}
