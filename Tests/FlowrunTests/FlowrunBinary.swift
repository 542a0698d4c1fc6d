import Foundation

/// Runs the built `flowrun` executable, as a user would, and captures what it prints.
struct FlowrunBinary {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// `.build/<config>/flowrun`, beside the test bundle that SwiftPM builds in the same folder.
    static let url: URL = {
        _ = ChildSignals.restored
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("flowrun").path), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("flowrun")
    }()

    /// The repository's root folder.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The fixtures folder of these tests.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Runs `flowrun arguments...` in `directory` to its end, with `environment` added to this
    /// process's (and NO_COLOR set), and returns what it printed.
    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) async throws -> Result {
        let run = try LiveRun(arguments, in: directory, environment: environment)
        let status = await run.wait(seconds: 120)  // a hung run fails its test rather than the whole suite
        return Result(status: status, stdout: run.stdout, stderr: run.stderr)
    }
}
