import Foundation
import Testing

/// `p` in the live view, pressed on a real pseudo-terminal (python3's pty module), as a person
/// at the terminal presses it: the header says how, `p` pauses, `p` again resumes.
@Suite struct PauseKeyTests {
    /// Task `wait` blocks on a FIFO until the script opens it, so the run is still going when
    /// the keys are pressed, whatever the machine's speed.
    static let workflow = """
        version: 1
        tasks:
          wait: {shell: "cat go.fifo"}
          after: {needs: wait, shell: "echo after"}
        """

    @Test func pressingPPausesTheRunAndPressingItAgainResumesIt() async throws {
        let folder = try TemporaryFolder()
        try Data(Self.workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        #expect(mkfifo(folder.url.appendingPathComponent("go.fifo").path, 0o600) == 0)
        let result = try await PseudoTerminal.script(
            """
            spawn(sys.argv[2], sys.argv[1], [sys.argv[1], 'flow.yaml', '--events-file', 'events.jsonl'], json.loads(sys.argv[3]))
            until(b'pause: press p (p again resumes), or kill -USR1 %d' % pid)
            os.write(fd, b'p')
            until(b'paused: running tasks go on, none starts until p or SIGUSR2')
            os.write(fd, b'p')
            until(b'resumed\\r\\n')
            open(os.path.join(sys.argv[2], 'go.fifo'), 'w').close()
            status = finish()
            sys.stdout.write(out.decode('utf-8', 'replace'))
            sys.exit(status)
            """, in: folder.url, environment: ["NO_COLOR": "1"])
        #expect(result.status == 0, "\(result.output)")
        let events = try String(contentsOf: folder.url.appendingPathComponent("events.jsonl"), encoding: .utf8)
        let names = events.split(separator: "\n").compactMap { line -> String? in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["event"] as? String
        }
        #expect(names.filter { $0.hasPrefix("queue.") } == ["queue.suspended", "queue.resumed"], "\(names)")
        #expect(names.last == "workflow.finished")
    }
}
