import FlowFiles
import FlowLoading
import FlowPlanning
import Foundation
import Testing

@testable import FlowState

/// A task whose input glob or folder matches its own output (`inputs: ['*.txt'], to: all.txt`):
/// the output is not one of its inputs, as a go-task `generates` file or a ninja output is not
/// its own input, so the task is up to date on its second run, and an edit to a real input
/// still makes it run.
@Suite struct OwnOutputsTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("own-outputs-\(UUID().uuidString)").path
    let disk = InMemoryFileSystem()

    func plan(_ task: String) throws -> Plan {
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        try Data("version: 1\ntasks:\n  all: \(task)\n".utf8).write(to: URL(fileURLWithPath: base + "/flow.yaml"))
        let loaded = WorkflowLoader.load(path: base + "/flow.yaml")
        let workflow = try #require(loaded.workflow, "\(loaded.diagnostics)")
        return try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
    }

    /// One run as the engine drives the gate; the task, if it runs, writes `/w/parts/all.txt`
    /// from the other parts, as combine does. Whether it ran.
    func run(_ plan: Plan) -> Bool {
        let check = UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/flow.yaml"),
            force: false, fileSystem: disk)
        let ran = check.skipReason(for: 0) == nil
        if ran {
            let parts = disk.files(matching: "/w/parts/*").filter { $0 != "/w/parts/all.txt" }
            disk.write("/w/parts/all.txt", parts.map { disk.contents($0) ?? "" }.joined())
            check.taskSucceeded(0)
        }
        check.finish()
        #expect(check.writeFailure == nil)
        return ran
    }

    static let tasks = [
        "{combine: {inputs: ['/w/parts/*'], to: /w/parts/all.txt}}",
        "{inputs: ['/w/parts/*'], outputs: [/w/parts/all.txt], shell: [cat]}",
    ]

    @Test(arguments: tasks)
    func aTaskWhoseInputGlobMatchesItsOutputIsUpToDateOnItsSecondRun(task: String) throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        disk.write("/w/parts/1.txt", "one")
        disk.advance(seconds: 10)
        let plan = try plan(task)
        #expect(run(plan))
        disk.advance(seconds: 10)
        #expect(!run(plan))
        #expect(disk.contents("/w/parts/all.txt") == "one")
        // A real input still counts.
        disk.write("/w/parts/2.txt", "two")
        disk.advance(seconds: 10)
        #expect(run(plan))
        #expect(disk.contents("/w/parts/all.txt") == "onetwo")
        disk.advance(seconds: 10)
        #expect(!run(plan))
    }

    @Test func anOutputIsLeftOutOfTheInputsByItsPathItsFolderOrItsGlob() {
        disk.write("/w/logs/run.log", "")
        let own = OwnOutputs(["/w/all.txt", "/w/build/", "/w/logs/*"]).matcher(fileSystem: disk)
        #expect(own.contains("/w/all.txt"))
        #expect(!own.contains("/w/all.txt.bak"))
        #expect(own.contains("/w/build/gen/a.c"))
        #expect(!own.contains("/w/buildx/a.c"))
        #expect(own.contains("/w/logs/run.log"))
        #expect(!own.contains("/w/run.log"))
    }
}
