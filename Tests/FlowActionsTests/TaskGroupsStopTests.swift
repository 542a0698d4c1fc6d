import Foundation
import Glibc
import Testing

@testable import FlowActions

/// Ctrl-Z (`TaskGroups.stopAll`) while a task's spawn has not returned: its child runs already
/// (past its exec), but its group was known only once the spawn returned, so the Ctrl-Z missed
/// it and the task ran on while flowrun was stopped (JobControlTests, once in 15 runs under load).
@Suite struct TaskGroupsStopTests {
    /// Spawns `sleep 1000` as the leader of a new process group.
    static func spawnSleep() -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default SIGTSTP, as flowrun gives its children: the test runner may ignore it.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTSTP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("1000"), nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, "/bin/sleep", nil, &attributes, argv, environ) == 0)
        return pid
    }

    /// The state letter of `pid` in /proc (`T` stopped).
    static func state(_ pid: pid_t) -> Character? {
        guard let stat = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let close = stat.lastIndex(of: UInt8(ascii: ")")), close + 2 < stat.count
        else { return nil }
        return Character(UnicodeScalar(stat[close + 2]))
    }

    // Synchronous, polling with usleep: an async wait (Task.sleep) needs a free thread of the
    // shared pool to resume on, and in the full suite other tests' blocking waits held them all
    // for minutes, past the deadline (seen once under load, 285 s).
    @Test func aCtrlZStopsTheGroupOfASpawnUnderWay() {
        let groups = TaskGroups()
        let child = LockedBox<pid_t>(0)
        let spawned = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let stopReturned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = groups.spawning {
                let pid = Self.spawnSleep()
                child.update { $0 = pid }
                spawned.signal()
                release.wait()  // the spawn has not returned: the child's group is not known yet
                return pid
            }
        }
        spawned.wait()
        Thread.detachNewThread {
            groups.stopAll()
            stopReturned.signal()
        }
        // Until the Ctrl-Z waits for the spawn (a hang guard only).
        let stoppingDeadline = ContinuousClock.now + .seconds(120)
        while !groups.isStopping, ContinuousClock.now < stoppingDeadline { usleep(10_000) }
        #expect(groups.isStopping)
        release.signal()
        stopReturned.wait()
        let pid = child.value
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        // SIGTSTP was sent before `stopAll` returned; the stop itself follows (a hang guard only).
        let stoppedDeadline = ContinuousClock.now + .seconds(120)
        while Self.state(pid) != "T", ContinuousClock.now < stoppedDeadline { usleep(10_000) }
        #expect(Self.state(pid) == "T", "the group of the spawn under way was stopped")
    }
}
