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
    func onATerminal(_ arguments: [String] = [], environment: [String: String] = [:]) async throws -> (status: Int32, screen: String) {
        let folder = try TemporaryFolder()
        try Data(Self.workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let env = ["TERM": "xterm", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"].merging(environment) { $1 }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: env), as: UTF8.self)
        let result = try await RunTests.python(
            [
                "-c",
                """
                import json, os, pty, sys
                pid, fd = pty.fork()
                if pid == 0:
                    os.chdir(sys.argv[2])
                    os.execve(sys.argv[1], [sys.argv[1], 'flow.yaml'] + sys.argv[4:], json.loads(sys.argv[3]))
                out = b''
                while True:
                    try:
                        data = os.read(fd, 65536)
                    except OSError:
                        break
                    if not data:
                        break
                    out += data
                _, status = os.waitpid(pid, 0)
                sys.stdout.write(out.decode('utf-8', 'replace'))
                sys.exit(os.waitstatus_to_exitcode(status))
                """, FlowrunBinary.url.path, folder.url.path, json,
            ] + arguments)
        return (result.status, result.output)
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
}
