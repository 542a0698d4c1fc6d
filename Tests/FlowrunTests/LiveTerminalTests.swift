import Foundation
import Testing

/// The live view on a real pseudo-terminal, as a person with a colour terminal sees it: tasks
/// are told to colour their output, and their colours show; NO_COLOR turns both off.
@Suite struct LiveTerminalTests {
    static let workflow = """
        version: 1
        tasks:
          paint: {shell: "printf '\\\\033[31mred\\\\033[0m and \\\\033[2Jno clear\\\\n'; echo \\"force=$FORCE_COLOR clicolor=$CLICOLOR_FORCE\\""}
          b: {shell: "echo short id"}
        """

    /// Runs `flowrun flow.yaml ARGS` on a pseudo-terminal (python3's pty module) with `environment`, and returns what it drew.
    func onATerminal(
        _ arguments: [String] = [], environment: [String: String] = [:], workflow: String = Self.workflow
    ) async throws -> (status: Int32, screen: String) {
        let folder = try TemporaryFolder()
        try Data(workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        return try await PseudoTerminal.run(["flow.yaml"] + arguments, in: folder.url, environment: environment)
    }

    @Test func tasksAreToldToUseColourAndTheirColoursShowWithPaddedPrefixes() async throws {
        let (status, screen) = try await onATerminal()
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("force=1 clicolor=1"))
        #expect(screen.contains("\u{1B}[31mred\u{1B}[0m and no clear"), "the task's red shows")
        #expect(!screen.contains("\u{1B}[2J"), "but it cannot clear the screen")
        let plain = screen.replacingOccurrences(of: #"\x{1B}\[[0-9;?]*[A-Za-z]"#, with: "", options: .regularExpression)
        #expect(plain.contains("b     | short id"), "padded to the width of 'paint'")
    }

    @Test func noColorMeansNoColourFromTasksEither() async throws {
        let (status, screen) = try await onATerminal(environment: ["NO_COLOR": "1"])
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("force= clicolor="))
        #expect(screen.contains("paint | red and no clear"))
        #expect(!screen.contains("\u{1B}[31m"))
    }

    @Test func plainModeOnATerminalDoesNotForceColour() async throws {
        let (status, screen) = try await onATerminal(["--events", "plain"])
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("force= clicolor="))
    }

    /// 60 tasks, `t17` fails: the end summary names it (and the slowest) rather than 60 rows.
    @Test func aRunOfManyTasksEndsWithTheFailuresAndTheSlowestUnlessSummaryAll() async throws {
        let tasks = (0..<60).map { "  t\($0): {shell: \"\($0 == 17 ? "exit 3" : "true")\"}\n" }.joined()
        let workflow = "version: 1\nfail_fast: false\ntasks:\n" + tasks
        func rows(_ screen: String) -> Int {
            screen.components(separatedBy: "\n").filter { $0.range(of: #"^t[0-9]+ +(succeeded|failed) +[0-9.]+s +1$"#, options: .regularExpression) != nil }
                .count
        }
        let plain = { (screen: String) in
            screen.replacingOccurrences(of: #"\x{1B}\[[0-9;?]*[A-Za-z]"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: "\r", with: "")
        }
        let compact = try await onATerminal(workflow: workflow)
        #expect(compact.status == 1)
        let shown = plain(compact.screen)
        #expect(shown.contains("60 tasks: the failures and the 10 slowest (--summary all lists every task)"), "\(shown)")
        #expect(shown.range(of: #"\nt17 +failed +[0-9.]+s +1\n"#, options: .regularExpression) != nil)
        #expect(shown.contains("t17 failed: exited with status 3"))
        #expect(rows(shown) == 11)
        let all = try await onATerminal(["--summary", "all"], workflow: workflow)
        #expect(all.status == 1)
        #expect(rows(plain(all.screen)) == 60)
        #expect(!plain(all.screen).contains("--summary all"))
    }
}
