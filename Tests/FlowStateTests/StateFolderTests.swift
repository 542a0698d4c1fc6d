import Foundation
import Testing

@testable import FlowState

@Suite struct StateFolderTests {
    @Test func theFolderIsBesideTheWorkflowUnlessTheEnvironmentNamesOne() {
        #expect(StateFolder(forWorkflowAt: "/srv/ci/flowrun.yaml", environment: [:]).path == "/srv/ci/.flowrun")
        #expect(StateFolder(forWorkflowAt: "/srv/ci/flowrun.yaml", environment: ["FLOWRUN_STATE_DIR": "/var/state"]).path == "/var/state")
    }

    @Test func creatingItKeepsItsContentsOutOfGit() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        let folder = StateFolder(path: base + "/.flowrun")
        try folder.create()
        try folder.create()
        let ignore = try String(contentsOfFile: folder.file(".gitignore"), encoding: .utf8)
        #expect(ignore.split(separator: "\n").contains("*"))
    }
}
