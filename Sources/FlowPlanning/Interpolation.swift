/// Expands `${NAME}` and `${NAME:-default}` in the fields the spec lists; `$${` is a literal `${`.
///
/// Nothing is ever substituted into a shell script: scripts read their variables from the
/// environment, which rules out script injection by construction.
package struct Interpolation: Sendable {
    package enum Problem: Hashable, Sendable {
        case undefined(String)
        case malformed
    }

    /// Looks a name up: task env, then workflow env (with `--env`), then the process environment.
    let lookup: @Sendable (String) -> String?

    package init(lookup: @escaping @Sendable (String) -> String?) {
        self.lookup = lookup
    }

    package enum Expansion: Hashable, Sendable {
        case expanded(String)
        /// Every problem in the text, each undefined name once.
        case failed([Problem])
    }

    /// `text` with its variables expanded; `substituted` is told each name whose value it took.
    package func expand(_ text: String, substituted: (String) -> Void = { _ in }) -> Expansion {
        guard text.utf8.contains(UInt8(ascii: "$")) else { return .expanded(text) }
        var rest = Substring(text)
        var problems: [Problem] = []
        let output = expand(&rest, inDefault: false, used: true, problems: &problems, substituted: substituted)
        if output == nil, !problems.contains(.malformed) { problems.append(.malformed) }
        guard let output, problems.isEmpty else { return .failed(problems) }
        return .expanded(output)
    }

    /// Expands `rest` to its end or, inside a default, to the `}` that closes it (consumed);
    /// nil if a `${` is never closed. Undefined names are problems only where the text is `used`.
    private func expand(
        _ rest: inout Substring, inDefault: Bool, used: Bool, problems: inout [Problem], substituted: (String) -> Void
    ) -> String? {
        var output = ""
        while let special = rest.firstIndex(where: { $0 == "$" || (inDefault && $0 == "}") }) {
            output += rest[..<special]
            rest = rest[special...]
            if rest.hasPrefix("}") {
                rest = rest.dropFirst()
                return output
            } else if rest.hasPrefix("$${") {
                output += "${"
                rest = rest.dropFirst(3)
            } else if rest.hasPrefix("${") {
                rest = rest.dropFirst(2)
                guard let value = reference(&rest, used: used, problems: &problems, substituted: substituted) else { return nil }
                output += value
            } else {
                output += "$"
                rest = rest.dropFirst()
            }
        }
        if inDefault { return nil }
        output += rest
        rest = ""
        return output
    }

    /// The value of one reference, `rest` starting just after its `${`: `NAME}` or `NAME:-WORD}`
    /// (WORD if NAME is unset or empty, as in POSIX sh and docker compose). nil if never closed.
    /// `${NAME-WORD}` stays malformed: it would quietly turn a typo like `${app-name}` into "name".
    private func reference(_ rest: inout Substring, used: Bool, problems: inout [Problem], substituted: (String) -> Void) -> String? {
        let name = String(rest.prefix { $0 != "}" && $0 != ":" })
        rest = rest.dropFirst(name.count)
        guard Self.isName(name), rest.hasPrefix("}") || rest.hasPrefix(":-") else {
            if !problems.contains(.malformed) { problems.append(.malformed) }
            guard let close = rest.firstIndex(of: "}") else { return nil }
            rest = rest[rest.index(after: close)...]
            return ""
        }
        let value = lookup(name)
        if rest.hasPrefix("}") {
            rest = rest.dropFirst()
            if let value {
                if used { substituted(name) }
                return value
            }
            if used, !problems.contains(.undefined(name)) { problems.append(.undefined(name)) }
            return ""
        }
        rest = rest.dropFirst(2)
        let taken = value?.isEmpty == true ? nil : value
        guard let word = expand(&rest, inDefault: true, used: used && taken == nil, problems: &problems, substituted: substituted) else {
            return nil
        }
        guard let taken else { return word }
        if used { substituted(name) }
        return taken
    }

    static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }
    }
}
