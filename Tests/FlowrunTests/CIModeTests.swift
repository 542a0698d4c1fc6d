import Foundation
import Testing

/// A CI job (GitLab, Buildkite) often gives its script a pseudo-terminal: the log there should
/// read as plain lines, not as a live view redrawn in place.
@Suite struct CIModeTests {
    static let workflow = """
        version: 1
        tasks:
          build: {shell: "echo compiling"}
        """

    /// Runs `flowrun arguments...` on a pseudo-terminal with only TERM, PATH and `environment`.
    func onATerminal(_ arguments: [String], environment: [String: String]) async throws -> (status: Int32, screen: String) {
        let folder = try TemporaryFolder()
        try Data(Self.workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return try await PseudoTerminal.run(arguments, in: folder.url, environment: environment)
    }

    /// The live view ends with a summary table; the plain log with one line.
    func isLiveView(_ screen: String) -> Bool {
        let plain = screen.replacingOccurrences(of: #"\x{1B}\[[0-9;?]*[A-Za-z]"#, with: "", options: .regularExpression)
        return plain.contains("task   result")
    }

    func isPlainLog(_ screen: String) -> Bool {
        !screen.contains("\u{1B}") && screen.contains("compiling")
    }

    @Test(arguments: [
        ["CI": "true"], ["CI": "1"], ["GITHUB_ACTIONS": "true"], ["BUILDKITE": "true"], ["GITLAB_CI": "true"], ["CI": "True"],
    ])
    func aCIJobOnAPseudoTerminalGetsThePlainLog(_ environment: [String: String]) async throws {
        let run = try await onATerminal(["flow.yaml"], environment: environment)
        #expect(run.status == 0)
        #expect(isPlainLog(run.screen), "\(run.screen)")
    }

    @Test(arguments: [[:], ["CI": "false"], ["CI": "0"], ["CI": ""], ["GITHUB_ACTIONS": "false"]])
    func withCITurnedOffATerminalStillGetsTheLiveView(_ environment: [String: String]) async throws {
        let run = try await onATerminal(["flow.yaml"], environment: environment)
        #expect(run.status == 0)
        #expect(isLiveView(run.screen), "\(run.screen)")
    }

    @Test func eventsHumanAsksForTheLiveViewEvenInCI() async throws {
        let run = try await onATerminal(["flow.yaml", "--events", "human"], environment: ["CI": "true"])
        #expect(run.status == 0)
        #expect(isLiveView(run.screen), "\(run.screen)")
    }
}
