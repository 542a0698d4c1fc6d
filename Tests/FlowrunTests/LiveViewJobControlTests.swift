import Foundation
import Testing

/// Ctrl-Z during the live view, on a real pseudo-terminal (python3's pty module): the live view
/// takes the terminal out of line mode and echo (for the `p` key) and hides the cursor; a
/// stopped flowrun must leave the terminal as the shell and the next program expect it, as
/// `less` and `vim` do, and take it again when continued.
@Suite(.serialized) struct LiveViewJobControlTests {
    /// Task `wait` blocks on a FIFO until the script opens it, so the run is still going while
    /// it is stopped and continued, whatever the machine's speed.
    static let workflow = """
        version: 1
        tasks:
          wait: {shell: "echo $PPID > flowrun.pid; cat go.fifo"}

        """

    @Test func ctrlZGivesTheTerminalBackAndContinuingTakesItAgain() async throws {
        let folder = try TemporaryFolder()
        try Data(Self.workflow.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        #expect(mkfifo(folder.url.appendingPathComponent("go.fifo").path, 0o600) == 0)
        // flowrun runs under sh, in sh's session and process group (the terminal's foreground):
        // Ctrl-Z stops a process whose group is not orphaned.
        let result = try await PseudoTerminal.script(
            """
            import signal
            spawn(sys.argv[2], '/bin/sh', ['sh', '-c', '"$0" flow.yaml --no-record; echo "status $?"', sys.argv[1]], json.loads(sys.argv[3]))
            def state(process):
                with open('/proc/%d/stat' % process) as stat:
                    text = stat.read()
                return text[text.rindex(')') + 2]
            def lines():
                return termios.tcgetattr(fd)[3] & (termios.ICANON | termios.ECHO)
            whole = termios.ICANON | termios.ECHO
            pidfile = os.path.join(sys.argv[2], 'flowrun.pid')
            eventually(lambda: os.path.exists(pidfile) and open(pidfile).read().endswith('\\n'), 'the task')
            flowrun = int(open(pidfile).read())
            eventually(lambda: b'\\x1b[?25l' in out and lines() == 0, 'the live view')
            os.kill(flowrun, signal.SIGTSTP)
            eventually(lambda: state(flowrun) == 'T', 'flowrun to stop')
            drain()
            stopped = {'modes': lines() == whole, 'cursor': out.rfind(b'\\x1b[?25h') > out.rfind(b'\\x1b[?25l')}
            os.kill(flowrun, signal.SIGCONT)
            eventually(lambda: state(flowrun) != 'T', 'flowrun to continue')
            eventually(lambda: lines() == 0, 'the key modes again')
            open(os.path.join(sys.argv[2], 'go.fifo'), 'w').close()
            status = finish()
            ended = {'modes': lines() == whole, 'status': b'status 0' in out}
            print(json.dumps({'stopped': stopped, 'ended': ended}))
            sys.exit(status)
            """, in: folder.url, environment: ["NO_COLOR": "1"])
        #expect(result.status == 0, "\(result.output)")
        let line = try #require(result.output.split(separator: "\n").last)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [String: Bool]], "\(result.output)")
        #expect(report["stopped"]?["modes"] == true, "line mode and echo while stopped: \(result.output)")
        #expect(report["stopped"]?["cursor"] == true, "the cursor shown while stopped")
        #expect(report["ended"] == ["modes": true, "status": true], "\(result.output)")
    }
}
