import Foundation
import Testing

/// The README's field reference against `schemas/workflow.schema.json`: every property the
/// schema declares is in the reference's table for its part of the file, and every key a
/// table lists is in the schema there, so that neither can change without the other.
@Suite struct FieldReferenceTests {
    /// Each part of the schema that declares properties, by its JSON pointer, and the heading
    /// of its table in the reference. A new part (a new action, say) fails the test until the
    /// reference has a table for it.
    static let sections: [String: String] = [
        "/properties": "Top level",
        "/$defs/task/properties": "Tasks (`tasks.ID`)",
        "/properties/defaults/properties": "`defaults`",
        "/$defs/queue/properties": "`queues.NAME`",
        "/$defs/task/properties/matrix/properties": "`matrix`",
        "/$defs/download/properties": "`download`",
        "/$defs/decompress/properties": "`decompress`",
        "/$defs/combine/properties": "`combine`",
    ]

    /// Keywords under which `properties` only constrain keys declared elsewhere (`if`, `then`,
    /// `dependentSchemas` ...): no new key is declared there.
    static let constraints: Set<String> = ["if", "then", "else", "not", "anyOf", "oneOf", "allOf", "dependentSchemas"]

    /// The property names of each part of the schema, by the pointer of its `properties`.
    static func schemaKeys() throws -> [String: Set<String>] {
        let data = try Data(contentsOf: FlowrunBinary.repositoryRoot.appendingPathComponent("schemas/workflow.schema.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var keys: [String: Set<String>] = [:]
        func walk(_ node: Any, _ pointer: String) {
            guard let object = node as? [String: Any] else { return }
            if let properties = object["properties"] as? [String: Any] { keys[pointer + "/properties"] = Set(properties.keys) }
            for (name, child) in object where !Self.constraints.contains(name) {
                if name == "properties", let properties = child as? [String: Any] {
                    for (key, value) in properties { walk(value, pointer + "/properties/" + key) }
                } else {
                    walk(child, pointer + "/" + name)
                }
            }
        }
        walk(schema, "")
        return keys
    }

    /// The keys each table of the README's "Field reference" lists (its rows' first cells,
    /// written as code), by the heading above the table.
    static func referenceKeys() throws -> [String: Set<String>] {
        let readme = try String(contentsOf: FlowrunBinary.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "\n## Field reference\n"))
        let rest = readme[start.upperBound...]
        let section = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        var keys: [String: Set<String>] = [:]
        var heading: String?
        for line in section.split(separator: "\n") {
            if line.hasPrefix("### ") {
                heading = String(line.dropFirst(4))
            } else if line.hasPrefix("| `"), let heading {
                let cell = line.dropFirst(3)
                if let end = cell.firstIndex(of: "`") { keys[heading, default: []].insert(String(cell[..<end])) }
            }
        }
        return keys
    }

    @Test func everySchemaPropertyIsInTheReferenceAndEveryReferenceKeyIsInTheSchema() throws {
        let schema = try Self.schemaKeys()
        let reference = try Self.referenceKeys()
        for (pointer, keys) in schema {
            guard let heading = Self.sections[pointer] else {
                Issue.record("the schema declares properties at \(pointer), which the field reference has no table for: \(keys.sorted())")
                continue
            }
            let listed = reference[heading] ?? []
            #expect(keys.subtracting(listed).isEmpty, "missing from the reference's '\(heading)': \(keys.subtracting(listed).sorted())")
            #expect(listed.subtracting(keys).isEmpty, "in the reference's '\(heading)' but not in the schema: \(listed.subtracting(keys).sorted())")
        }
        let tables = Set(Self.sections.values)
        #expect(Set(reference.keys).subtracting(tables).isEmpty, "tables of no part of the schema: \(Set(reference.keys).subtracting(tables))")
        #expect(Set(schema.keys) == Set(Self.sections.keys), "parts of the schema gone: \(Set(Self.sections.keys).subtracting(schema.keys))")
    }
}
