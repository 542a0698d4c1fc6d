import FlowExport
import FlowLoading
import FlowModel
import FlowPlanning
import Foundation
import Testing

/// Plans workflows for the exporters, as `flowrun export` does, from text or from a file.
enum ExportFixture {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `text` planned as if it were `/repo/flow.yaml`.
    static func plan(_ text: String, directory: String = "/repo") throws -> Plan {
        let loaded = WorkflowLoader.decode(Array(text.utf8), file: "flow.yaml", directory: directory, defaultName: "flow")
        #expect(!loaded.diagnostics.hasErrors, "\(loaded.diagnostics)")
        let workflow = try #require(loaded.workflow)
        return try #require(try Planner.plan(workflow, options: PlanningOptions()).plan)
    }

    static func plan(file path: String) throws -> Plan {
        let loaded = WorkflowLoader.load(path: path)
        #expect(!loaded.diagnostics.hasErrors, "\(loaded.diagnostics)")
        var options = PlanningOptions()
        options.processEnvironment = ProcessInfo.processInfo.environment
        let workflow = try #require(loaded.workflow)
        return try #require(try Planner.plan(workflow, options: options).plan)
    }

    static func options(_ path: String = "flow.yaml", root: String = "/repo") -> ExportOptions {
        var options = ExportOptions(workflowPath: path, root: root)
        options.image = "ghcr.io/example/flowrun:1"
        return options
    }

    /// Runs `validate_export.py` with these arguments: its exit status and output.
    static func validate(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "Tests/FlowExportTests/validate_export.py"] + arguments
        process.currentDirectoryURL = repositoryRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A temporary file holding `text`, removed by the caller.
    static func write(_ text: String, name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }
}
