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
        Self("unsupported tag '\(tag)'", hint: "flowrun reads plain YAML; only !!str is understood")
    }
    static let nulInScalar = Self("a value cannot hold a NUL character (\\0): scripts, variables, arguments and paths would end there")
    static let tabIndentation = Self("a tab character cannot indent YAML; indent with spaces")
    static let secondDocument = Self("a workflow file holds one YAML document; this is a second one")
    static func badMergeValue(found: String) -> Self {
        Self("'<<' merges a mapping or a list of mappings, not \(found)")
    }
}
