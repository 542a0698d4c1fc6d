import CLinux
import Foundation
import Glibc

/// Processes that left a task's process group (`set -m`, `setsid`, a daemon) and so escaped the
/// kill of the group when the task ended: killed when the run ends, as the GitHub Actions runner
/// and systemd do (README, "Decisions").
///
/// flowrun is a child subreaper for the run, so such a process, once its parent has exited,
/// becomes flowrun's child instead of init's; every process below flowrun is found through
/// the parent pids in /proc.
package enum LeftoverProcesses {
    static let unkillableSeconds = 5.0

    /// Makes flowrun the subreaper of what its tasks leave behind. Call before the first task starts.
    package static func adopt() {
        _ = flowrun_become_subreaper()
    }

    /// Ends every process below flowrun but `sparing`: SIGTERM (and SIGCONT, for a stopped
    /// one), then SIGKILL for those still there after `grace` seconds; reaps those that became
    /// flowrun's children. Call only once every task has ended: a task's own child is reaped
    /// by its `ChildProcess`, and would be taken from it. Gives up on a process that outlives
    /// a SIGKILL by `unkillableSeconds` (stuck in the kernel, on a dead NFS server say).
    package static func end(grace: Double, sparing: pid_t?) {
        // No task process ever started: nothing can have left one (the walk of /proc took
        // 2-4 ms at the end of a run of downloads).
        guard TaskGroups.shared.hasSpawned else { return }
        let killAt = Date().addingTimeInterval(grace)
        let giveUpAt = killAt.addingTimeInterval(unkillableSeconds)
        var told: Set<pid_t> = []
        while Date() < giveUpAt {
            let found = descendants(sparing: sparing)
            for process in found where process.isZombie && process.parent == getpid() {
                var status: Int32 = 0
                _ = waitpid(process.pid, &status, WNOHANG)
            }
            let living = found.filter { !$0.isZombie }
            guard !living.isEmpty else { return }
            let killing = Date() >= killAt
            for process in living where killing || told.insert(process.pid).inserted {
                kill(process.pid, killing ? SIGKILL : SIGTERM)
                if !killing { kill(process.pid, SIGCONT) }
            }
            usleep(10_000)
        }
    }

    /// SIGKILLs every process below flowrun but `sparing`, and does not wait: for an exit at once.
    package static func killAll(sparing: pid_t?) {
        for process in descendants(sparing: sparing) where !process.isZombie { kill(process.pid, SIGKILL) }
    }

    struct Process {
        var pid: pid_t
        var parent: pid_t
        var isZombie: Bool
    }

    /// Every process whose parent, or its parent's parent and so on, is flowrun, but `sparing`
    /// and those below it; from /proc/PID/stat.
    static func descendants(sparing: pid_t?) -> [Process] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var children: [pid_t: [Process]] = [:]
        for entry in entries {
            guard let pid = pid_t(entry), let process = read(pid) else { continue }
            children[process.parent, default: []].append(process)
        }
        var found: [Process] = []
        var parents = [getpid()]
        while let parent = parents.popLast() {
            for child in children[parent] ?? [] where child.pid != sparing {
                found.append(child)
                parents.append(child.pid)
            }
        }
        return found
    }

    /// `PID (COMM) STATE PPID ...`; the command name may hold spaces and parentheses, so the
    /// fields are read after its last `)`.
    private static func read(_ pid: pid_t) -> Process? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let close = data.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        let fields = data[(close + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 3)
        guard fields.count >= 2, let state = fields[0].first,
            let parent = pid_t(String(decoding: fields[1], as: UTF8.self))
        else { return nil }
        return Process(pid: pid, parent: parent, isZombie: state == UInt8(ascii: "Z") || state == UInt8(ascii: "X"))
    }
}
