import FlowTestSupport
import Foundation

/// flowrun on a real pseudo-terminal (python3's pty module), as a person at a terminal, or a
/// CI job that allocates one, runs it.
enum PseudoTerminal {
    /// Runs `flowrun arguments...` in `folder` with TERM=xterm, the tests' PATH and `environment`
    /// (nothing else), and returns its exit status and everything it drew.
    static func run(_ arguments: [String], in folder: URL, environment: [String: String] = [:]) async throws -> (status: Int32, screen: String) {
        let result = try await script(
            """
            spawn(sys.argv[2], sys.argv[1], [sys.argv[1]] + sys.argv[4:], json.loads(sys.argv[3]))
            status = finish()
            sys.stdout.write(out.decode('utf-8', 'replace'))
            sys.exit(status)
            """, in: folder, environment: environment, arguments: arguments)
        return (result.status, result.output)
    }

    /// Runs `body`, Python after `PseudoTerminalScript.prelude`, with `sys.argv` the flowrun
    /// binary, `folder`, the environment for `spawn` as JSON (TERM=xterm, the tests' PATH and
    /// `environment`, nothing else), then `arguments`; returns its exit status and what it printed.
    static func script(
        _ body: String, in folder: URL, environment: [String: String] = [:], arguments: [String] = []
    ) async throws -> (status: Int32, output: String) {
        let base = ["TERM": "xterm", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        let variables = String(decoding: try JSONSerialization.data(withJSONObject: base.merging(environment) { $1 }), as: UTF8.self)
        return try await RunTests.python(["-c", PseudoTerminalScript.prelude + body, FlowrunBinary.url.path, folder.path, variables] + arguments)
    }
}
