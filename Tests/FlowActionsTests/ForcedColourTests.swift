import FlowActions
import FlowPlanning
import Foundation
import Testing

/// What a task sees when the live view shows its colours: `FORCE_COLOR=1` and `CLICOLOR_FORCE=1`,
/// so that tools that colour only a terminal colour their output; a value the user gave wins.
@Suite struct ForcedColourTests {
    static let workflow = """
        version: 1
        tasks:
          show: {shell: "echo \\"${FORCE_COLOR-unset} ${CLICOLOR_FORCE-unset}\\""}
          own: {env: {FORCE_COLOR: "0"}, shell: "echo \\"${FORCE_COLOR-unset} ${CLICOLOR_FORCE-unset}\\""}
        """

    func seen(forceColour: Bool, environment: [String: String] = [:]) async throws -> [String] {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var base = ProcessInfo.processInfo.environment
        for name in ["FORCE_COLOR", "CLICOLOR_FORCE", "NO_COLOR"] { base[name] = nil }
        let loop = OutputLoop()
        defer { loop.end() }
        let runner = ShellRunner(loop: loop, processEnvironment: base.merging(environment) { $1 }, forceColour: forceColour)
        var lines: [String] = []
        for task in try ShellRunnerTests.tasks(Self.workflow, in: folder) {
            lines += await ShellRunnerTests.run(task, runner: runner).stdout
        }
        return lines
    }

    @Test func tasksAreToldToUseColourAndTheirOwnEnvWins() async throws {
        #expect(try await seen(forceColour: true) == ["1 1", "0 1"])
    }

    @Test func theUsersOwnValueWins() async throws {
        #expect(try await seen(forceColour: true, environment: ["FORCE_COLOR": "3"]) == ["3 1", "0 1"])
    }

    @Test func noColorOrNoLiveColourLeavesThemUnset() async throws {
        #expect(try await seen(forceColour: true, environment: ["NO_COLOR": "1"]) == ["unset unset", "0 unset"])
        #expect(try await seen(forceColour: false) == ["unset unset", "0 unset"])
    }
}
