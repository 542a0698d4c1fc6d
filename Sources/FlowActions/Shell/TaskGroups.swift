import CLinux
import FlowFiles
import Foundation
import Glibc

/// The process groups of the tasks that run now, known to flowrun (to send them all a signal,
/// whatever the engine is doing) and to a watchdog process that kills them if flowrun dies
/// without doing so itself: a SIGKILL, a crash.
///
/// A group is known from the moment its child is spawned until just before its leader is
/// reaped: until then the leader, running or a zombie, keeps the group's id from being reused,
/// so a signal to the group cannot reach a stranger. The child tells the watchdog of its group
/// itself, before it execs (`flowrun_spawn`).
///
/// - Warning: `leaders`, `spawns`, `stopping`, `adopting` and `reapsSinceSweep` are guarded by `lock`.
package final class TaskGroups: @unchecked Sendable {
    package static let shared = TaskGroups()

    private let lock = NSCondition()
    private var leaders: Set<pid_t> = []
    /// Spawns under way: their child may run its task (it is past its exec) before the spawn
    /// returns its pid, and a Ctrl-Z must stop it too (`stopAll`).
    private var spawns = 0
    /// A Ctrl-Z waits for the spawns under way: none starts meanwhile.
    private var stopping = false
    /// Whether a task's process was ever spawned: until then nothing but the watchdog can be
    /// below flowrun (`LeftoverProcesses.end` has nothing to look for).
    private var spawnedAny = false
    /// Whether flowrun is the subreaper of its tasks' leftovers (`adoptOrphans`).
    private var adopting = false
    /// The write end of the watchdog's pipe, -1 without a watchdog.
    private(set) var watchdogDescriptor: Int32 = -1
    /// The watchdog's pid, which is flowrun's child but no task.
    package private(set) var watchdogPid: pid_t?
    /// `FLOWRUN_RUN_TOKEN`'s value, in every task's environment while a watchdog runs: by it the
    /// watchdog finds the processes a task left with no parent of the run (a double fork).
    package private(set) var runToken: String?
    static let runTokenName = "FLOWRUN_RUN_TOKEN"

    /// Starts the watchdog. Call it once, at the start of a run, while the process has one
    /// thread and a small heap: the pages it has then are shared copy-on-write with the child,
    /// and each one the run writes later is copied (a fault, and on several threads a TLB
    /// shootdown). The child takes no lock (no malloc). Returns why it could not start, if it did not.
    package func startWatchdog() -> String? {
        var pid: pid_t = 0
        let descriptor = flowrun_watchdog_start(&pid)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        watchdogDescriptor = descriptor
        watchdogPid = pid
        runToken = flowrun_run_token().map { String(cString: $0) }
        return nil
    }

    /// The run ended with every process below flowrun killed (`LeftoverProcesses.end`): the
    /// watchdog has nothing to look for when flowrun exits.
    package func endedCleanly() {
        if watchdogDescriptor >= 0 { flowrun_watchdog_ended_cleanly(watchdogDescriptor) }
    }

    /// Runs `spawn`, which returns the pid of the child it spawned, the leader of a new group
    /// known from then on, or nil if it spawned none.
    func spawning(_ spawn: () -> pid_t?) -> pid_t? {
        lock.withLock {
            while stopping { lock.wait() }
            spawns += 1
            spawnedAny = true
        }
        let pid = spawn()
        lock.withLock {
            spawns -= 1
            if let pid { leaders.insert(pid) }
            lock.broadcast()
        }
        return pid
    }

    /// Whether `spawning` ever ran: a run of downloads, extractions and combines alone has none.
    var hasSpawned: Bool {
        lock.withLock { spawnedAny }
    }

    /// Forgets the group of `leader`, whose process has exited, and reaps it: returns waitpid's
    /// result, the status, and whether a leftover of the task may still be in its group (for
    /// `leftoversRemain`). The group is forgotten while its id is still the leader's, so a
    /// signal to it cannot reach a stranger. Once flowrun is the subreaper (`adoptOrphans`),
    /// the leftovers in the group that have exited are reaped with the leader (one `waitid`
    /// more tells whether any is left: most often none, and the task ends at once), and now
    /// and then the exited leftovers that had left their task's group (a `setsid` daemon that
    /// died), which no task's end waits for. Either way a run of thousands of tasks that each
    /// leave a process does not hold thousands of zombies, and their pids, to its end.
    func reap(_ leader: pid_t) -> (pid: pid_t, status: Int32, leftoversMayRemain: Bool) {
        lock.withLock {
            leaders.remove(leader)
            flowrun_watchdog_forget(watchdogDescriptor, leader)
            var status: Int32 = 0
            // With a spawn under way, a child that has exited may be a task's leader not yet in
            // `leaders`, and a new group may take `leader`'s id once it is reaped: the leader
            // alone is reaped, and `leftoversRemain` looks at its group later.
            guard adopting && spawns == 0 else {
                var reaped: pid_t
                repeat { reaped = waitpid(leader, &status, WNOHANG) } while reaped == -1 && errno == EINTR
                return (reaped, status, adopting)
            }
            var found: Int32 = 0
            var remaining: Int32 = 0
            let reaped = flowrun_reap_leader(leader, &status, &found, &remaining)
            reapsSinceSweep += 1
            if found > 0 || reapsSinceSweep >= Self.reapsBetweenSweeps {
                reapsSinceSweep = 0
                reapExitedLeftovers()
            }
            return (reaped, status, remaining != 0)
        }
    }

    /// How many leaders are reaped between two looks for the exited leftovers outside any task's
    /// group (`reapExitedLeftovers`): a task that leaves none (most) costs no system call for
    /// them, and a run whose tasks each leave one that dies holds a few dozen zombies at most.
    static let reapsBetweenSweeps = 32
    private var reapsSinceSweep = 0

    /// Reaps the leftovers in the group `leader` led that have exited (flowrun adopted them as
    /// the leader exited; `leader` is reaped); whether one is still there. False unless flowrun
    /// is their subreaper.
    func leftoversRemain(in leader: pid_t) -> Bool {
        lock.withLock {
            guard adopting else { return false }
            // A spawn under way may be a new task whose group has `leader`'s number (free once
            // that group was empty): ask again later. A known group of that number is not
            // this task's any more, and its leader is reaped by its own `ChildProcess`.
            guard spawns == 0 else { return true }
            guard !leaders.contains(leader) else { return false }
            return flowrun_reap_group(leader) == 1
        }
    }

    /// flowrun is the subreaper of what its tasks leave (`LeftoverProcesses.adopt`): from now
    /// on, `reap` also reaps those leftovers once they have exited.
    func adoptOrphans() {
        lock.withLock { adopting = true }
    }

    /// Reaps the exited children that are leftovers of tasks: each is in a task's group or a
    /// group of its own, never in flowrun's. Stops at the first exited child that is not one:
    /// a task's leader, reaped by its `ChildProcess`; a child in flowrun's own group, which
    /// whoever started it waits for (the watchdog, a program libarchive runs for a filter).
    /// waitid names the same child first until it is reaped, so a later `reap` goes on.
    private func reapExitedLeftovers() {
        var buffer: [UInt8] = []
        while true {
            let pid = flowrun_exited_child()
            guard pid > 0, !leaders.contains(pid) else { return }
            if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: ProcessStat.bufferSize) }
            guard let process = ProcessStat.read(pid, into: &buffer), process.group != getpgrp() else { return }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return }
        }
    }

    /// Sends `signal` to every task's group: SIGCONT after a stop, SIGKILL
    /// when flowrun exits at once.
    package func signalAll(_ signal: Int32) {
        lock.withLock {
            for leader in leaders { kill(-leader, signal) }
        }
    }

    /// Sends SIGTSTP (Ctrl-Z) to every task's group, those of the spawns under way included,
    /// once they have returned: a task that had started but whose group was not known yet went
    /// on running while flowrun stopped (seen in JobControlTests under load). Then runs
    /// `andThen` (flowrun stops itself there) before any new spawn may start: one started in
    /// between would run on while flowrun is stopped.
    package func stopAll(andThen: () -> Void = {}) {
        lock.withLock {
            stopping = true
            while spawns > 0 { lock.wait() }
            for leader in leaders { kill(-leader, SIGTSTP) }
            andThen()
            stopping = false
            lock.broadcast()
        }
    }

    /// Whether a `stopAll` waits for spawns under way (for tests).
    var isStopping: Bool { lock.withLock { stopping } }

    /// The groups of the tasks that run now.
    package var current: Set<pid_t> { lock.withLock { leaders } }
}
