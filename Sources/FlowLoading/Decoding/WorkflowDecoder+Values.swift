import FlowModel

/// Readers of single values: each reports what is wrong and returns nil, so decoding goes on.
///
/// A field's name ("'needs' of task 'build'") is an autoclosure, built only when a problem is
/// reported: built for every field of every task, it would be a string thrown away per field.
extension WorkflowDecoder {
    func location(_ node: Node) -> SourceLocation {
        location(node.mark)
    }

    func location(_ mark: Mark) -> SourceLocation {
        SourceLocation(file: file, line: Int(mark.line), column: Int(mark.column))
    }

    mutating func report(_ message: Diagnostic.Message, at node: Node) {
        report(message, at: node.mark)
    }

    /// Records a problem once: a node reached through several aliases is decoded once per alias,
    /// but its problem is written in one place.
    mutating func report(_ message: Diagnostic.Message, at mark: Mark) {
        report(Diagnostic(message, at: location(mark)))
    }

    mutating func report(_ diagnostic: Diagnostic) {
        if reported.insert(diagnostic).inserted { diagnostics.append(diagnostic) }
    }

    /// The entries of a mapping with string keys; nil (reported) if `node` is not a mapping.
    mutating func entries(_ node: Node, _ field: @autoclosure () -> String) -> [MappingEntry]? {
        guard case .mapping(let pairs) = node.content else {
            report(.wrongType(field(), expected: "a mapping", found: node.kindDescription), at: node)
            return nil
        }
        var entries: [MappingEntry] = []
        entries.reserveCapacity(pairs.count)
        for pair in pairs {
            guard let key = pair.key.scalar, pair.key.scalarKind != .null else {
                report(.nonStringKey(found: pair.key.kindDescription), at: pair.key)
                continue
            }
            entries.append(MappingEntry(key: key.text, keyMark: pair.key.mark, value: pair.value))
        }
        return entries
    }

    /// Reports keys outside `allowed`, with the closest allowed key as a hint.
    /// `notes` answers another tool's key with flowrun's (`ForeignKeys`).
    mutating func rejectUnknownKeys(
        _ entries: [MappingEntry], allowed: Set<String>, in context: @autoclosure () -> String, notes: (String) -> String? = { _ in nil }
    ) {
        for entry in entries where !allowed.contains(entry.key) {
            if let note = notes(entry.key) {
                report(.unknownKey(entry.key, in: context(), note: note), at: entry.keyMark)
                continue
            }
            let suggestion = Spelling.suggestion(for: entry.key, among: allowed.sorted())
            report(.unknownKey(entry.key, in: context(), suggestion: suggestion), at: entry.keyMark)
        }
    }

    /// Reports required keys that are missing, at the mapping itself.
    mutating func requireKeys(_ keys: [String], in entries: [MappingEntry], of node: Node, context: @autoclosure () -> String) {
        for key in keys where !entries.contains(where: { $0.key == key }) {
            report(.missingKey(key, in: context()), at: node)
        }
    }

    /// Any non-null scalar reads as a string, as in GitHub Actions (`VERSION: 2.4` is "2.4").
    /// `expected` names what is accepted, in the error: any scalar but null is taken as its text.
    mutating func string(_ node: Node, _ field: @autoclosure () -> String, expected: String = "a string") -> String? {
        guard let scalar = node.scalar, node.scalarKind != .null else {
            report(.wrongType(field(), expected: expected, found: node.kindDescription), at: node)
            return nil
        }
        return scalar.text
    }

    mutating func locatedString(_ node: Node, _ field: @autoclosure () -> String, expected: String = "a string") -> Located<String>? {
        string(node, field(), expected: expected).map { Located($0, at: location(node)) }
    }

    /// A string that must not be empty.
    mutating func nonEmptyString(_ node: Node, _ field: @autoclosure () -> String) -> Located<String>? {
        guard let value = locatedString(node, field()) else { return nil }
        guard !value.value.isEmpty else {
            report(.empty(field()), at: node)
            return nil
        }
        return value
    }

    mutating func int(_ node: Node, _ field: @autoclosure () -> String, minimum: Int) -> Int? {
        guard case .int(let value) = node.scalarKind else {
            report(.wrongType(field(), expected: "an integer", found: node.kindDescription), at: node)
            return nil
        }
        guard value >= minimum else {
            report(.tooSmall(field(), minimum: minimum, found: value), at: node)
            return nil
        }
        return value
    }

    mutating func bool(_ node: Node, _ field: @autoclosure () -> String) -> Bool? {
        guard case .bool(let value) = node.scalarKind else {
            report(.wrongType(field(), expected: "true or false", found: node.kindDescription), at: node)
            return nil
        }
        return value
    }

    /// Whole seconds as an integer, or a string such as `1h30m`.
    mutating func duration(_ node: Node, _ field: @autoclosure () -> String) -> TimeSpan? {
        switch node.scalarKind {
        case .int(let seconds) where seconds >= 0:
            return TimeSpan(parsing: String(seconds)) ?? invalidDuration(node, field())
        case .int, .float, .string:
            return TimeSpan(parsing: node.scalar!.text) ?? invalidDuration(node, field())
        default:
            report(.wrongType(field(), expected: "a duration", found: node.kindDescription), at: node)
            return nil
        }
    }

    private mutating func invalidDuration(_ node: Node, _ field: @autoclosure () -> String) -> TimeSpan? {
        report(.invalidDuration(field(), value: node.scalar?.text ?? ""), at: node)
        return nil
    }

    /// One of an enumeration's spellings.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(_ node: Node, _ field: @autoclosure () -> String) -> Choice?
    where Choice.RawValue == String {
        guard let text = string(node, field()) else { return nil }
        guard let value = Choice(rawValue: text) else {
            report(.notOneOf(field(), value: text, choices: Choice.allCases.map(\.rawValue)), at: node)
            return nil
        }
        return value
    }

    /// A list of strings; `allowSingle` also takes one string alone (as `needs: build`).
    /// `items` names what an item may be, in the errors ("strings": any scalar but null).
    mutating func strings(
        _ node: Node, _ field: @autoclosure () -> String, allowSingle: Bool, items itemKind: (one: String, many: String) = ("a string", "strings")
    ) -> [Located<String>]? {
        if allowSingle, node.scalar != nil, node.scalarKind != .null {
            return locatedString(node, field()).map { [$0] }
        }
        guard case .sequence(let items) = node.content else {
            let expected = allowSingle ? "\(itemKind.one) or a list of \(itemKind.many)" : "a list of \(itemKind.many)"
            report(.wrongType(field(), expected: expected, found: node.kindDescription), at: node)
            return nil
        }
        var values: [Located<String>] = []
        values.reserveCapacity(items.count)
        for item in items {
            if let value = locatedString(item, "an item of \(field())", expected: itemKind.one) { values.append(value) }
        }
        return values
    }

    /// Whether `node` is a list with no item as written: one whose items `strings` reported
    /// (a mapping, a list) gives no string either, but calling it empty would mislead.
    static func isEmptyList(_ node: Node) -> Bool {
        if case .sequence(let items) = node.content { return items.isEmpty }
        return false
    }

    /// An `env` map: variable names to string values, in file order.
    mutating func environment(_ node: Node, _ field: @autoclosure () -> String) -> [EnvironmentEntry]? {
        guard let entries = entries(node, field()) else { return nil }
        var result: [EnvironmentEntry] = []
        for entry in entries {
            guard EnvironmentEntry.isValidName(entry.key) else {
                report(.invalidEnvName(entry.key), at: entry.keyMark)
                continue
            }
            if let value = string(entry.value, "'\(entry.key)'") {
                result.append(EnvironmentEntry(name: entry.key, value: value))
            }
        }
        return result
    }
}
