/// A YAML node that remembers where it was written (1-based line and column).
///
/// A value, not an object: a scalar lives inside its parent's array, so a 100,000-task file
/// costs a few allocations per task rather than one per node (every command builds and frees
/// the tree). An alias is a copy of the anchored node, whose lists it shares,
/// so a document's tree is still a DAG; `weight` counts the nodes an expansion of this one
/// would produce, which bounds the work of walking it.
package struct Node: Sendable {
    package enum Content: Sendable {
        case scalar(Scalar)
        case sequence([Node])
        case mapping([Pair])
    }

    package struct Scalar: Sendable {
        package var text: String
        /// Plain scalars are typed (null, bool, int, float); quoted ones and `!!str` are strings.
        package var isPlain: Bool
    }

    package struct Pair: Sendable {
        package var key: Node
        package var value: Node
    }

    package let content: Content
    package let line: Int32
    package let column: Int32
    package let weight: Int

    init(_ content: Content, line: Int32, column: Int32, weight: Int) {
        self.content = content
        self.line = line
        self.column = column
        self.weight = weight
    }

    /// The scalar's text, if this is a scalar.
    package var scalar: Scalar? {
        if case .scalar(let scalar) = content { scalar } else { nil }
    }
}

extension Node {
    /// What kind of value a plain or quoted scalar is, by the YAML 1.2 core schema.
    package enum ScalarKind: Sendable, Equatable {
        case null, bool(Bool), int(Int), float, string
    }

    package var scalarKind: ScalarKind? {
        guard case .scalar(let scalar) = content else { return nil }
        guard scalar.isPlain else { return .string }
        // Most plain scalars are words (keys, ids, paths): their first byte rules out the
        // special spellings and numbers without comparing or parsing.
        let text = scalar.text
        guard let first = text.utf8.first else { return .null }
        switch first {
        case UInt8(ascii: "~"), UInt8(ascii: "n"), UInt8(ascii: "N"):
            if text == "~" || text == "null" || text == "Null" || text == "NULL" { return .null }
        case UInt8(ascii: "t"), UInt8(ascii: "T"):
            if text == "true" || text == "True" || text == "TRUE" { return .bool(true) }
        case UInt8(ascii: "f"), UInt8(ascii: "F"):
            if text == "false" || text == "False" || text == "FALSE" { return .bool(false) }
        default:
            break
        }
        guard Self.mayBeNumber(first) else { return .string }
        return CoreNumber.kind(of: text)
    }

    /// Whether a number of the core schema can start with `first`: a digit, a sign or a point.
    private static func mayBeNumber(_ first: UInt8) -> Bool {
        switch first {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."): true
        default: false
        }
    }

    /// "a mapping", "a string", "null": how a message names what it found.
    package var kindDescription: String {
        switch content {
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .scalar:
            switch scalarKind {
            case .null: return "null"
            case .bool: return "a boolean"
            case .int: return "an integer"
            case .float: return "a number"
            case .string, nil: return "a string"
            }
        }
    }
}
