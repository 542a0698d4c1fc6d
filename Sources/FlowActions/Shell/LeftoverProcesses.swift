import CLinux
import FlowFiles
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
        guard flowrun_become_subreaper() == 0 else { return }
        TaskGroups.shared.adoptOrphans()
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

    /// Every process whose parent, or its parent's parent and so on, is flowrun, but `sparing`
    /// and those below it; from /proc/PID/stat. Read with `readdir` and one `read(2)` a file
    /// into one buffer, not Foundation's directory listing and `Data`: the walk runs at the end
    /// of every run that spawned, over every process of the machine (~180 here, 4 calls and
    /// two allocations each through Foundation), after the last task has ended.
    static func descendants(sparing: pid_t?) -> [ProcessStat] {
        var children: [pid_t: [ProcessStat]] = [:]
        if let folder = opendir("/proc") {
            defer { closedir(folder) }
            var buffer = [UInt8](repeating: 0, count: ProcessStat.bufferSize)
            while let entry = readdir(folder) {
                guard let pid = pidName(entry), let process = ProcessStat.read(pid, into: &buffer) else { continue }
                children[process.parent, default: []].append(process)
            }
        }
        var found: [ProcessStat] = []
        var parents = [getpid()]
        while let parent = parents.popLast() {
            for child in children[parent] ?? [] where child.pid != sparing {
                found.append(child)
                parents.append(child.pid)
            }
        }
        return found
    }

    /// The pid a /proc entry is named for; nil for any other entry (`self`, `sys`, ...).
    private static func pidName(_ entry: UnsafeMutablePointer<dirent>) -> pid_t? {
        withUnsafeBytes(of: entry.pointee.d_name) { name -> pid_t? in
            var pid: Int64 = 0
            for byte in name {
                if byte == 0 { break }
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), pid <= Int64(Int32.max) else { return nil }
                pid = pid * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return pid > 0 && pid <= Int64(Int32.max) ? pid_t(pid) : nil
        }
    }
}
