import Foundation
import Testing

/// A task's leader reaped through its group (`flowrun_reap_leader`) together with the exited
/// processes it left there: its exit status, or the signal that ended it, is the task's, and
/// what it left is not held as flowrun's zombie.
@Suite struct LeaderReapTests {
    /// Writes `text` as `flow.yaml` in a new folder and runs `flowrun run --events jsonl flow.yaml`.
    func run(_ text: String) async throws -> (result: FlowrunBinary.Result, events: EventStream) {
        let folder = try TemporaryFolder()
        try Data(text.utf8).write(to: folder.url.appendingPathComponent("flow.yaml"))
        let result = try await FlowrunBinary.run(["run", "--events", "jsonl", "flow.yaml"], in: folder.url)
        return (result, try EventStream(result.stdout))
    }

    /// A python3 leader that forks a child which exits at once, waits until it has exited and
    /// leaves it unreaped (a zombie that becomes flowrun's as the leader exits), then `ends`.
    static func leavingAZombie(_ file: String, then ends: String) -> String {
        let script = [
            "import os, sys, signal", "pid = os.fork()", "pid == 0 and os._exit(0)", "open('\(file)', 'w').write(str(pid))",
            "os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)", ends,
        ]
        return "exec python3 -c \"\(script.joined(separator: "; "))\""
    }

    /// Fails if the process whose pid is in `file` is still a child of flowrun (its zombie).
    static func notFlowrunsChild(_ file: String) -> String {
        #"state=$(cut -d' ' -f3,4 /proc/$(cat \#(file))/stat 2>/dev/null) || exit 0; echo "$(cat \#(file)): $state"; [ "${state#* }" != "$PPID" ]"#
    }

    @Test func aLeaderThatLeftAnExitedChildEndsWithItsOwnStatusAndTheChildIsReaped() async throws {
        let leader = Self.leavingAZombie("child", then: "sys.exit(5)")
        let check = Self.notFlowrunsChild("child")
        let (result, events) = try await run(
            """
            version: 1
            tasks:
              leave:
                shell: |
                  \(leader)
              check:
                needs: leave
                when: always
                shell: |
                  \(check)
            """)
        #expect(result.status == 1)
        #expect(events.finals == ["leave": "task.failed", "check": "task.succeeded"], "\(events.lines(of: "check"))")
        let failed = try #require(events.named("task.failed").first)
        #expect(failed["reason"] as? String == "exited with status 5")
        #expect(failed["exit_code"] as? Int == 5)
    }

    @Test func aLeaderKilledByASignalAfterLeavingAnExitedChildIsSaidKilledByIt() async throws {
        let leader = Self.leavingAZombie("child", then: "os.kill(os.getpid(), signal.SIGTERM)")
        let (result, events) = try await run(
            """
            version: 1
            tasks:
              leave:
                shell: |
                  \(leader)
            """)
        #expect(result.status == 1)
        let failed = try #require(events.named("task.failed").first)
        #expect(failed["reason"] as? String == "killed by signal SIGTERM (15)")
    }
}
