import FlowModel

/// A node's tag, read by the YAML 1.2 core schema, as GitHub Actions and Kubernetes read one:
/// `!!str`, `!!int`, `!!float`, `!!bool` and `!!null` on a scalar, `!!map` on a mapping and
/// `!!seq` on a list mean what YAML says; any other tag (`!!binary`, `!!timestamp`, `!include`,
/// a tag on a node of another kind) is refused, since flowrun would have to guess its meaning.
enum CoreTag {
    private static let prefix = "tag:yaml.org,2002:"

    /// What a tagged scalar is: a string (its text as written), a typed value (read as a plain
    /// scalar is, whatever its quotes), or a problem to report.
    enum ScalarReading {
        case string, typed, refused(Diagnostic.Message)
    }

    static func reading(scalar text: String, tag: String) -> ScalarReading {
        if tag == "!" || tag == prefix + "str" { return .string }
        // What the text would be untagged and unquoted: the tag must agree with it.
        let kind = Node(.scalar(.init(text: text, isPlain: true)), line: 0, column: 0, weight: 1).scalarKind
        let fits: Bool
        switch (tag.dropFirst(prefix.count), kind) {
        case _ where !tag.hasPrefix(prefix): return .refused(.unsupportedTag(shown(tag)))
        case ("int", .int): fits = true
        case ("float", .float), ("float", .int): fits = true
        case ("bool", .bool): fits = true
        case ("null", .null): fits = true
        case ("int", _), ("float", _), ("bool", _), ("null", _): fits = false
        case ("map", _), ("seq", _): return .refused(.tagOfAnotherKind(shown(tag), found: "a single value"))
        default: return .refused(.unsupportedTag(shown(tag)))
        }
        return fits ? .typed : .refused(.valueNotOfTag(text, tag: shown(tag)))
    }

    /// A problem with a mapping's or a list's tag, if any: a core tag of another kind of node
    /// (`!!str {x: 1}`) is said to be so, not "unsupported" (the note lists it as understood).
    static func problem(collectionTag tag: String, isMapping: Bool) -> Diagnostic.Message? {
        if tag == "!" || tag == prefix + (isMapping ? "map" : "seq") { return nil }
        let coreTags = ["str", "int", "float", "bool", "null", "map", "seq"].map { prefix + $0 }
        guard coreTags.contains(tag) else { return .unsupportedTag(shown(tag)) }
        return .tagOfAnotherKind(shown(tag), found: isMapping ? "a mapping" : "a list")
    }

    /// `!!int` as it was most likely written, rather than `tag:yaml.org,2002:int`.
    static func shown(_ tag: String) -> String {
        tag.hasPrefix(prefix) ? "!!" + tag.dropFirst(prefix.count) : tag
    }
}
