/// A YAML document as the exporters build it: written by `YAMLWriter` in block style, each
/// string quoted only where YAML would read it as something else.
package indirect enum YAMLNode: Sendable {
    /// A string: plain when that reads back as the same string, else double-quoted.
    case string(String)
    /// Written as it is: numbers and booleans the exporter made itself.
    case literal(String)
    /// Several lines: a literal block (`|-`) when the text allows one.
    case text(String)
    case sequence([YAMLNode])
    /// A short sequence of scalars on one line: `[a, b]`.
    case flowSequence([YAMLNode])
    case mapping([YAMLEntry])
}

/// One `key: value` of a mapping, with a comment line before it.
package struct YAMLEntry: Sendable {
    package var key: String
    package var value: YAMLNode
    package var comment: String?

    package init(_ key: String, _ value: YAMLNode, comment: String? = nil) {
        self.key = key
        self.value = value
        self.comment = comment
    }
}
