import FlowLoading
import FlowModel
import FlowPlanning
import Foundation
import Testing

@testable import FlowState

/// `FilesBeforeRun`: every task's files in one list, each task's found by where they start. Each
/// task's inputs and outputs, in every chunk and across their edges, are what its patterns name
/// on the disk now, as the check would stat them itself; a task that is not tracked has none.
@Suite struct FilesBeforeRunTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("files-before-run-\(UUID().uuidString)").path
    let disk = InMemoryFileSystem()

    /// A plan of `count` tasks of four kinds in turn: a plain copy, one with a glob among its
    /// inputs (three files, and its own output among them, which the glob leaves out), one with
    /// no files (not tracked), one whose input is missing.
    func plan(count: Int) throws -> Plan {
        var text = "version: 1\ntasks:\n"
        for index in 0..<count {
            switch index % 4 {
            case 0: text += "  t\(index): {inputs: [/w/in/\(index)], outputs: [/w/out/\(index)], shell: [cp, a, b]}\n"
            // They all write `own`: each needs the one before, as two unordered writers are refused.
            case 1:
                let needs = index >= 5 ? "needs: [t\(index - 4)], " : ""
                text += "  t\(index): {\(needs)inputs: [/w/in/\(index), /w/parts/*], outputs: [/w/parts/own], shell: [cp, a, b]}\n"
            case 2: text += "  t\(index): {shell: [\"true\"]}\n"
            default: text += "  t\(index): {inputs: [/w/in/missing-\(index)], outputs: [/w/out/\(index)], shell: [cp, a, b]}\n"
            }
            disk.write("/w/in/\(index)", "input \(index)")
            if index % 8 == 0 { disk.write("/w/out/\(index)", "made") }
        }
        for part in ["a", "b", "own"] { disk.write("/w/parts/" + part, part) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: base + "/flow.yaml"))
        let loaded = WorkflowLoader.load(path: base + "/flow.yaml")
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        return try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
    }

    @Test func eachTasksFilesAreThoseItsPatternsNameNow() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let plan = try plan(count: FilesBeforeRun.minimumTasks + 13)
        guard let before = FilesBeforeRun(plan.tasks, fileSystem: disk) else {
            #expect(ChunkedWork.cores == 1, "taken on every core for a plan this large")
            return
        }
        func described(_ files: some Collection<FoundFile>) -> [String] {
            files.map { "\($0.pattern) \($0.path) \($0.status.map { "\($0.size) \($0.inode)" } ?? "unreadable")" }
        }
        var globbed = 0
        for (index, task) in plan.tasks.enumerated() {
            guard TaskDefinition.isTracked(task) else {
                #expect(before.files(of: index) == nil, "task \(index)")
                continue
            }
            let files = try #require(before.files(of: index), "task \(index)")
            let inputs = FileDigests.statuses(
                ofPatterns: TaskDefinition.inputs(of: task), leavingOut: TaskDefinition.ownOutputs(of: task), fileSystem: disk)
            let outputs = FileDigests.statuses(ofPatterns: TaskDefinition.outputs(of: task), fileSystem: disk)
            #expect(described(files.inputs) == described(inputs), "task \(index)")
            #expect(described(files.outputs) == described(outputs), "task \(index)")
            if index % 4 == 1 {
                #expect(described(files.inputs).count == 3 && !files.inputs.contains { $0.path == "/w/parts/own" }, "task \(index)")
                globbed += 1
            }
        }
        #expect(globbed == plan.tasks.count / 4 + (plan.tasks.count % 4 > 1 ? 1 : 0))
    }
}
