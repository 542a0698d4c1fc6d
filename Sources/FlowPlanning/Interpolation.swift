/// Expands `${NAME}` in the fields the spec lists; `$${` is a literal `${`.
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
        var output = ""
        var problems: [Problem] = []
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            output += rest[..<dollar]
            rest = rest[dollar...]
            if rest.hasPrefix("$${") {
                output += "${"
                rest = rest.dropFirst(3)
            } else if rest.hasPrefix("${") {
                guard let close = rest.firstIndex(of: "}") else {
                    problems.append(.malformed)
                    rest = ""
                    break
                }
                let name = String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])
                rest = rest[rest.index(after: close)...]
                if !Self.isName(name) {
                    if !problems.contains(.malformed) { problems.append(.malformed) }
                } else if let value = lookup(name) {
                    output += value
                    substituted(name)
                } else if !problems.contains(.undefined(name)) {
                    problems.append(.undefined(name))
                }
            } else {
                output += "$"
                rest = rest.dropFirst()
            }
        }
        output += rest
        return problems.isEmpty ? .expanded(output) : .failed(problems)
    }

    static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) }
    }
}
