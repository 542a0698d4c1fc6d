// subprocess-spawn N JOBS PROGRAM: runs PROGRAM N times with swift-subprocess 1.0.2, at most
// JOBS in flight (a task group), each child leading a process group of its own, its stdout
// and stderr collected through pipes; prints "spawned N, failed F" as bench/spawn_floor.c
// does. Exits 1 if any child failed (non-zero exit or could not start), 2 on a usage error.
//
// Why: docs/processes.md chose flowrun's own posix_spawn launcher over swift-subprocess on
// one old number. This puts swift-subprocess in bench/run_bench.py next to flowrun, make and
// the floor, doing what flowrun does per task (own process group, both pipes read), so the
// choice can be checked on the same machine in the same run.
import Subprocess

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a line to stderr (fd 2; C's `stderr` is a global var, which Swift 6 will not share).
func warn(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}

let args = CommandLine.arguments
guard args.count == 4, let n = Int(args[1]), let jobs = Int(args[2]), n >= 0, jobs >= 1 else {
    warn("usage: subprocess-spawn N JOBS PROGRAM   (N >= 0, JOBS >= 1)")
    exit(2)
}
let program = args[3]

let options = {
    var options = PlatformOptions()
    options.processGroupID = 0  // setpgid(0, 0): the child leads a group of its own, as in flowrun
    return options
}()

/// One run of PROGRAM: true if it started and exited 0.
@Sendable func spawnOnce() async -> Bool {
    do {
        let result = try await run(
            .path(.init(program)), platformOptions: options,
            output: .string(limit: 64 * 1024), error: .string(limit: 64 * 1024))
        return result.terminationStatus.isSuccess
    } catch {
        warn("subprocess-spawn: \(error)")
        return false
    }
}

var failed = 0
await withTaskGroup(of: Bool.self) { group in
    var started = 0
    while started < min(jobs, n) {
        group.addTask(operation: spawnOnce)
        started += 1
    }
    for await ok in group {  // one finished: start the next, so JOBS stay in flight
        if !ok { failed += 1 }
        if started < n {
            group.addTask(operation: spawnOnce)
            started += 1
        }
    }
}
print("spawned \(n), failed \(failed)")
exit(failed == 0 ? 0 : 1)
