import CLinux
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
/// - Warning: `leaders` is guarded by `lock`.
package final class TaskGroups: @unchecked Sendable {
    package static let shared = TaskGroups()

    private let lock = NSLock()
    private var leaders: Set<pid_t> = []
    /// The write end of the watchdog's pipe, -1 without a watchdog.
    private(set) var watchdogDescriptor: Int32 = -1
    /// The watchdog's pid, which is flowrun's child but no task.
    package private(set) var watchdogPid: pid_t?

    /// Starts the watchdog. Call it once, before any task starts, and best while the process has
    /// one thread (forking is then cheap and safe). Returns why it could not start, if it did not.
    package func startWatchdog() -> String? {
        var pid: pid_t = 0
        let descriptor = flowrun_watchdog_start(&pid)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        watchdogDescriptor = descriptor
        watchdogPid = pid
        return nil
    }

    /// Runs `spawn`, which starts a child leading a new group and returns spawn's status and the
    /// child's pid, and knows the group before any signal to every group can go out: else a
    /// Ctrl-Z in the moment between the spawn and the group's record missed a task, which ran on.
    func spawning(_ spawn: () -> (status: Int32, pid: pid_t)) -> (status: Int32, pid: pid_t) {
        lock.withLock {
            let spawned = spawn()
            if spawned.status == 0 { leaders.insert(spawned.pid) }
            return spawned
        }
    }

    /// The leader `pid` is about to be reaped: its group is forgotten while its id is still its own.
    func removing(_ pid: pid_t) {
        lock.withLock {
            leaders.remove(pid)
            flowrun_watchdog_forget(watchdogDescriptor, pid)
        }
    }

    /// Sends `signal` to every task's group: SIGHUP when flowrun's terminal hangs up, SIGKILL
    /// when it exits at once.
    package func signalAll(_ signal: Int32) {
        lock.withLock {
            for leader in leaders { kill(-leader, signal) }
        }
    }

    /// Ctrl-Z: stops every task's group, then flowrun itself. The lock is held until flowrun is
    /// continued, so that no task is spawned between the two and runs on while flowrun is stopped.
    package func stopAllThenSelf() {
        lock.withLock {
            for leader in leaders { kill(-leader, SIGTSTP) }
            kill(getpid(), SIGSTOP)
        }
    }

    /// The groups of the tasks that run now, for `signal(_:groups:)`.
    package var current: Set<pid_t> { lock.withLock { leaders } }

    /// Sends `signal` to those of `groups` that still run: a hang-up reaches the tasks that ran
    /// when it came, not the cleanup started after it.
    package func signal(_ signal: Int32, groups: Set<pid_t>) {
        lock.withLock {
            for leader in groups.intersection(leaders) { kill(-leader, signal) }
        }
    }
}
