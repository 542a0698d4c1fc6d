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
    /// and those below it; from /proc/PID/stat. Read with `readdir` and one `read(2)` a file
    /// into one buffer, not Foundation's directory listing and `Data`: the walk runs at the end
    /// of every run that spawned, over every process of the machine (~180 here, 4 calls and
    /// two allocations each through Foundation), after the last task has ended.
    static func descendants(sparing: pid_t?) -> [Process] {
        var children: [pid_t: [Process]] = [:]
        if let folder = opendir("/proc") {
            defer { closedir(folder) }
            var buffer = [UInt8](repeating: 0, count: statBufferSize)
            while let entry = readdir(folder) {
                guard let pid = pidName(entry), let process = read(pid, into: &buffer) else { continue }
                children[process.parent, default: []].append(process)
            }
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

    /// Longer than any /proc/PID/stat line (52 numbers and a name of at most 64 bytes).
    private static let statBufferSize = 4096

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

    /// `PID (COMM) STATE PPID ...`; the command name may hold spaces and parentheses, so the
    /// fields are read after its last `)`. nil for a process that has gone (or a line cut short).
    private static func read(_ pid: pid_t, into buffer: inout [UInt8]) -> Process? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        // One read: a stat file is made whole at the first, and is far shorter than the buffer.
        var count: Int
        repeat {
            count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
        } while count < 0 && errno == EINTR
        guard count > 0 else { return nil }
        let line = buffer[..<count]
        guard let nameEnd = line.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = line[(nameEnd + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 3)
        guard fields.count >= 2, let state = fields[0].first, let parent = number(fields[1]) else { return nil }
        return Process(pid: pid, parent: parent, isZombie: state == UInt8(ascii: "Z") || state == UInt8(ascii: "X"))
    }

    /// A decimal pid (the parent's: 0 for the kernel's own), as `pid_t(String)` reads it.
    private static func number(_ digits: ArraySlice<UInt8>) -> pid_t? {
        guard !digits.isEmpty, digits.count <= 10 else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value <= Int64(Int32.max) ? pid_t(value) : nil
    }
}
