import FlowLoading
import FlowModel
import FlowPlanning
import Testing

/// `Plan.compiled` keeps every string byte for byte. Swift's `==` on strings is canonical
/// equivalence: "café" with a precomposed é (NFC, as typed on Linux) equals "café" with e and a
/// combining accent (NFD, as macOS names files), yet they are two file names to Linux. A
/// cached run must run the commands and write the paths the first run did.
@Suite struct CompiledPlanExactTextTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    func plan(_ text: String) throws -> Plan {
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "w.yaml", directory: "/work", defaultName: "w")
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        let workflow = try #require(loaded.workflow)
        return try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
    }

    /// Whether every field holds the same bytes, as the debugger prints them.
    func sameBytes(_ one: Any, _ other: Any) -> Bool { String(reflecting: one).utf8.elementsEqual(String(reflecting: other).utf8) }

    @Test func namesThatDifferOnlyInUnicodeNormalizationAreReadBackAsWritten() throws {
        let plan = try plan(
            """
            version: 1
            tasks:
              nfc: {shell: "touch \(Self.composed).txt"}
              nfd: {shell: "touch \(Self.decomposed).txt"}
              one: {download: {url: "http://127.0.0.1/1", to: "\(Self.composed).bin"}}
              two: {download: {url: "http://127.0.0.1/2", to: "\(Self.decomposed).bin"}}
            """)
        let read = try plan.compiled.withUnsafeBytes { (raw) throws(CompiledPlanError) in try Plan(compiled: raw) }
        #expect(read.tasks.count == 4)
        for (was, now) in zip(plan.tasks, read.tasks) {
            #expect(sameBytes(now.action, was.action), "\(was.id): another action's bytes read back")
            #expect(sameBytes(now.spec, was.spec), "\(was.id): another spec's bytes read back")
        }
        #expect(sameBytes(read.workflow.tasks, plan.workflow.tasks))
    }
}
