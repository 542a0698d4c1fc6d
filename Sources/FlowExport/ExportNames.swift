import FlowModel

/// Maps task ids to the names an engine accepts, deterministically and without repeats.
///
/// Task ids may hold `.` and start with a digit or `-` (`1st.setup`, `test.unit`). A GitHub job
/// id starts with a letter or `_` and holds letters, digits, `-` and `_`; an Argo template or DAG
/// task name matches `[a-zA-Z0-9][-a-zA-Z0-9]*` and, in a DAG with `depends`, may not start with
/// a digit; it is also lowercase, since Argo names a pod WORKFLOW-TEMPLATE-HASH and Kubernetes
/// refuses an uppercase pod name. An id that is already valid keeps its name; the others are
/// spelled for the engine and, if that name is taken, get `-2`, `-3`... in file order. Names are
/// compared without case, as GitHub compares job ids.
package enum ExportNames {
    package enum Engine: Sendable {
        case github, argo
    }

    /// The longest name given: Kubernetes' label value length, which Argo names its pods by.
    static let maximumLength = 63

    /// Words of the expr language, in which Argo evaluates `depends` (reading `-` as `_`): a task
    /// named `not` or `true` would make `not.Succeeded`, which Argo cannot evaluate, and it would
    /// fail the dependent task. Such an id is spelled with the `t-` of a name that starts with a
    /// digit. (Only lowercase words: Argo names are lowercase.)
    static let argoExpressionWords: Set<String> = [
        "not", "in", "and", "or", "matches", "contains", "let", "if", "else", "true", "false", "nil",
    ]

    /// One name per id, in the same order; none equals a `reserved` name.
    package static func names(for ids: [TaskID], engine: Engine, reserved: Set<String> = []) -> [String] {
        var taken = Set(reserved.map { $0.lowercased() })
        var names = [String?](repeating: nil, count: ids.count)
        // First the ids that are valid names as they are, so that they never move.
        for (index, id) in ids.enumerated() where isValid(id, engine) && id.utf8.count <= maximumLength {
            if taken.insert(id.lowercased()).inserted { names[index] = id }
        }
        for (index, id) in ids.enumerated() where names[index] == nil {
            let base = spelled(id, engine)
            var name = base
            var number = 2
            while !taken.insert(name.lowercased()).inserted {
                let suffix = "-\(number)"
                name = String(base.prefix(maximumLength - suffix.count)) + suffix
                number += 1
            }
            names[index] = name
        }
        return names.map { $0! }
    }

    package static func isValid(_ name: String, _ engine: Engine) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= maximumLength else { return false }
        let letter = isLetter(first)
        switch engine {
        case .github:
            return (letter || first == UInt8(ascii: "_"))
                && name.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
        case .argo:
            return isLowercase(first) && name.utf8.allSatisfy { isLowercase($0) || isDigit($0) || $0 == UInt8(ascii: "-") }
                && !argoExpressionWords.contains(name)
        }
    }

    /// The id with each character the engine refuses replaced (`_` for GitHub, `-` for Argo, which
    /// also lowercases), and a prefix where it would start with something else than a letter
    /// (`_` or `t-`).
    static func spelled(_ id: TaskID, _ engine: Engine) -> String {
        let replacement: Character = engine == .github ? "_" : "-"
        var name = String(
            id.map { character -> Character in
                guard let byte = character.asciiValue else { return replacement }
                switch engine {
                case .github: return isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") ? character : replacement
                case .argo: return isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") ? Character(character.lowercased()) : replacement
                }
            })
        if let first = name.utf8.first, !isLetter(first), !(engine == .github && first == UInt8(ascii: "_")) {
            name = (engine == .github ? "_" : first == UInt8(ascii: "-") ? "t" : "t-") + name
        } else if engine == .argo, argoExpressionWords.contains(name) {
            name = "t-" + name
        }
        return String(name.prefix(maximumLength))
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isLowercase(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
