import Testing

@testable import FlowExport

/// Paths the export hands between jobs are named relative to the root by bytes: an output in
/// an NFD sibling of the root (`cafe\u{301}` beside `café`) is outside it, and an output whose
/// name starts with a combining mark is inside it (String's `hasPrefix` compares Characters
/// and got both wrong).
@Suite struct ExportPathTests {
    @Test func pathsAreRelativeToTheRootByBytes() {
        let options = ExportOptions(workflowPath: "flow.yaml", root: "/w/caf\u{E9}")
        #expect(options.relative("/w/cafe\u{301}/out.bin") == nil)
        #expect(options.relative("/w/caf\u{E9}/\u{301}x.bin").map { Array($0.utf8) } == Array("\u{301}x.bin".utf8))
        #expect(options.relative("/w/caf\u{E9}/d/f.bin") == "d/f.bin")
        #expect(options.relative("/w/caf\u{E9}") == ".")
        #expect(options.relative("/w/other/f.bin") == nil)
        let slashed = ExportOptions(workflowPath: "flow.yaml", root: "/w/caf\u{E9}/")
        #expect(slashed.relative("/w/caf\u{E9}") == ".")
        #expect(slashed.relative("/w/caf\u{E9}/d/f.bin") == "d/f.bin")
    }
}
