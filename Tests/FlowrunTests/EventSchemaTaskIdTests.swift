import Foundation
import Testing

/// The ids a real run puts in its events (a matrix combination `test[linux,3.11]`, a task of an
/// included file `lib:build`) are ids that `schemas/events.schema.json` accepts: a consumer that
/// validates the stream must not refuse the workflows the format allows.
@Suite struct EventSchemaTaskIdTests {
    @Test func matrixAndIncludedTaskIdsAreValidInTheEventSchema() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("lib"), withIntermediateDirectories: true)
        try Data(
            """
            version: 1
            tasks:
              build: {shell: "true"}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("lib/lib.yaml"))
        try Data(
            """
            version: 1
            include: {lib: lib/lib.yaml}
            tasks:
              test:
                needs: ["lib:build"]
                matrix: {os: [linux], py: ["3.11"]}
                shell: "true"
              cleanup: {needs: test, when: always, shell: "true"}
            """.utf8
        ).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(
            ["run", "--no-record", "--events", "plain", "--events-file", "events.jsonl", "flow.yaml"], in: folder.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let events = try String(contentsOf: folder.url.appendingPathComponent("events.jsonl"), encoding: .utf8)
        #expect(events.contains(#""task":"test[linux,3.11]""#) && events.contains(#""task":"lib:build""#))
        let check = try await RunTests.python([
            "Tests/FlowConsoleTests/validate_events.py", "schemas/events.schema.json", folder.url.appendingPathComponent("events.jsonl").path,
            "--tasks", "3",
        ])
        #expect(check.status == 0, "\(check.output)")
    }
}
