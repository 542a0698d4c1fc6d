/// How a run can be paused, for the live view's header and its paused counter: the `p` key,
/// when flowrun reads the terminal, and `kill -USR1` with flowrun's process id, which works
/// from anywhere.
package struct PauseHint: Sendable, Equatable {
    /// Whether `p` on the terminal pauses and resumes the run.
    package var key: Bool
    package var pid: Int32

    package init(key: Bool, pid: Int32) {
        self.key = key
        self.pid = pid
    }

    /// The header's line: `pause: press p (again to resume), or kill -USR1 4242 (-USR2 resumes)`.
    var header: String {
        let signal = "kill -USR1 \(pid) (kill -USR2 \(pid) resumes)"
        return key ? "pause: press p (p again resumes), or \(signal)" : "pause: \(signal)"
    }

    /// What resumes a paused run: `p or SIGUSR2`.
    var resumes: String { key ? "p or SIGUSR2" : "SIGUSR2" }
}
