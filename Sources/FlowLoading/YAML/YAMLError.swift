import FlowModel

/// A problem that stops loading: the file cannot be turned into a node tree.
package struct YAMLError: Error, Sendable {
    package var diagnostic: Diagnostic
    package init(_ diagnostic: Diagnostic) { self.diagnostic = diagnostic }
}

extension Diagnostic.Message {
    static func yamlSyntax(problem: String, context: String?) -> Self {
        Self(context.map { "\($0), \(problem)" } ?? problem)
    }
    /// `byte 0xE9 is not UTF-8`, with what the byte reads as in Latin-1 when it is a letter
    /// there: the usual cause is a file saved in Latin-1.
    static func notUTF8(_ byte: UInt8) -> Self {
        let hex = "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        let latin1 = byte >= 0xC0 ? " (\(hex) is '\(Character(Unicode.Scalar(byte)))' in Latin-1)" : ""
        return Self("byte \(hex) is not UTF-8: a workflow file is UTF-8 text", hint: "save the file as UTF-8\(latin1)")
    }
    static func duplicateKey(_ key: String, firstLine: Int32, firstColumn: Int32) -> Self {
        Self("duplicate key '\(key)' (first at line \(firstLine), column \(firstColumn))")
    }
    static func undefinedAlias(_ name: String) -> Self {
        Self("alias '*\(name)' refers to no anchor defined before it")
    }
    static func aliasExpansionTooLarge(limit: Int) -> Self {
        Self("aliases expand to more than \(limit) nodes; refusing to load (is this a billion-laughs file?)")
    }
    static func aliasBytesTooLarge(limit: Int) -> Self {
        Self("aliases expand to more than \(limit >> 20) MiB of text; refusing to load (is a long value anchored and referenced many times?)")
    }
    static func nestingTooDeep(limit: Int) -> Self {
        Self("nesting is deeper than \(limit) levels")
    }
    static func unsupportedTag(_ tag: String) -> Self {
        Self(
            "unsupported tag '\(tag)'",
            hint: "flowrun reads the YAML core schema; only !!str, !!int, !!float, !!bool and !!null on a value, !!map and !!seq are understood")
    }
    /// `!!str` on a mapping, `!!map` on a list or a single value.
    static func tagOfAnotherKind(_ tag: String, found: String) -> Self {
        let kind =
            switch tag {
            case "!!map": "a mapping"
            case "!!seq": "a list"
            default: "a single value"
            }
        return Self(
            "tag '\(tag)' is for \(kind), not \(found)",
            hint: "!!str, !!int, !!float, !!bool and !!null tag a single value, !!map a mapping, !!seq a list; remove the tag or change the value")
    }
    static func valueNotOfTag(_ text: String, tag: String) -> Self {
        Self("'\(text)' is not a valid \(tag) value")
    }
    static let nulInScalar = Self("a value cannot hold a NUL character (\\0): scripts, variables, arguments and paths would end there")
    static func keyTooLong(characters: Int) -> Self {
        Self(
            "key too long: YAML allows at most \(YAMLLoader.simpleKeyLimit) characters in a simple key; use a `? ` explicit key or shorten it",
            hint: "this key has \(characters) characters")
    }
    static let tabIndentation = Self("a tab character cannot indent YAML; indent with spaces")
    static let secondDocument = Self("a workflow file holds one YAML document; this is a second one")
    static func badMergeValue(found: String) -> Self {
        Self("'<<' merges a mapping or a list of mappings, not \(found)")
    }
}
