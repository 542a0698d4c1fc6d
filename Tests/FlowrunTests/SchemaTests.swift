import Foundation
import Testing

/// `schemas/workflow.schema.json` is what editors use: it must be what `flowrun schema` prints,
/// and it must agree with flowrun's validator on every fixture and example.
@Suite struct SchemaTests {
    @Test func flowrunSchemaPrintsThePublishedSchema() async throws {
        let published = try String(contentsOf: FlowrunBinary.repositoryRoot.appendingPathComponent("schemas/workflow.schema.json"), encoding: .utf8)
        let result = try await FlowrunBinary.run(["schema"])
        #expect(result.status == 0)
        #expect(
            result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == published.trimmingCharacters(in: .whitespacesAndNewlines),
            "run scripts/embed-schema after changing schemas/workflow.schema.json")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test func theSchemaAndTheValidatorAgreeOnEveryFixtureAndExample() async throws {
        let check = try await RunTests.python(["Tests/FlowrunTests/schema_agreement.py", FlowrunBinary.url.path])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.hasSuffix(" passed, 0 failed\n"))
    }
}
