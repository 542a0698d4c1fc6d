import FlowLoading
import FlowModel
import Testing

/// Tags are read by the YAML 1.2 core schema, the same way wherever they are written: a core
/// tag means what YAML says, any other is refused at its position. `!!binary ZWNo...` and
/// `!!int 5` were taken as plain text while `!include x` was refused, and a tag on a quoted
/// value (`!include "x"`) was not even looked at.
@Suite struct YAMLTagTests {
    func load(_ text: String) throws -> YAMLDocument {
        try YAMLLoader.load(Array(text.utf8), file: "f.yaml")
    }

    func rendered(_ diagnostic: Diagnostic) -> String {
        "\(diagnostic.location.line):\(diagnostic.location.column): \(diagnostic.message.text)"
    }

    @Test func aCoreTagMeansWhatYAMLSaysWhateverTheQuotes() throws {
        let cases: [(String, Node.ScalarKind)] = [
            ("!!int \"5\"", .int(5)), ("!!int 0x1F", .int(31)), ("!!bool 'true'", .bool(true)), ("!!null ''", .null),
            ("!!float \"1.5\"", .float), ("!!float 2", .int(2)), ("!!str 12", .string), ("!!str true", .string), ("! 12", .string),
        ]
        let document = try load(cases.map { "- \($0.0)\n" }.joined() + "- !!map {a: 1}\n- !!seq [1]\n")
        #expect(document.diagnostics.isEmpty, "\(document.diagnostics.map(rendered))")
        guard case .sequence(let items)? = document.root?.content else { Issue.record("not a list"); return }
        #expect(items.prefix(cases.count).map(\.scalarKind) == cases.map(\.1))
    }

    @Test func everyOtherTagIsRefusedAtItsPosition() throws {
        let document = try load(
            """
            - !!binary ZWNobyBoaQ==
            - !!int abc
            - !!bool yes
            - !include "scripts/build.sh"
            - !!timestamp 2001-12-14
            - !!map [1]
            - !!set {a: null}
            - {shell: !!binary "ZWNobyBoaQ=="}

            """)
        #expect(
            document.diagnostics.map(rendered) == [
                "1:3: unsupported tag '!!binary'",
                "2:3: 'abc' is not a valid !!int value",
                "3:3: 'yes' is not a valid !!bool value",
                "4:3: unsupported tag '!include'",
                "5:3: unsupported tag '!!timestamp'",
                "6:3: tag '!!map' is for a mapping, not a list",
                "7:3: unsupported tag '!!set'",
                "8:11: unsupported tag '!!binary'",
            ])
    }

    /// One mistake, one error, at the tag: `!!str {x: 1}` was "unsupported tag '!!str'" with a
    /// note naming `!!str` as understood, then "found a mapping" at the same place; a value
    /// its tag refuses (`!!bool yes`) was also "expected true or false ..., found a string".
    @Test func aTagThatDoesNotFitItsValueIsOneErrorAtTheTag() throws {
        let text = """
            version: 1
            fail_fast: !!bool yes
            tasks:
              a: {shell: !!str {x: 1}, retries: !!int two}
              b: {shell: !!map echo, needs: !!str [a], continue_on_error: !!bool on}

            """
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "f.yaml", directory: "/w", defaultName: "f")
        #expect(
            loaded.diagnostics.map(rendered) == [
                "2:12: 'yes' is not a valid !!bool value",
                "4:14: tag '!!str' is for a single value, not a mapping",
                "4:37: 'two' is not a valid !!int value",
                "5:14: tag '!!map' is for a mapping, not a single value",
                "5:33: tag '!!str' is for a single value, not a list",
                "5:63: 'on' is not a valid !!bool value",
            ])
        #expect(loaded.diagnostics.allSatisfy { $0.message.hint?.contains("only !!str") != true })
    }
}
