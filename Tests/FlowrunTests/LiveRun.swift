import Foundation
import Glibc

/// A `flowrun` run in the background: the test reads its stdout as it comes, sends it signals
/// and waits for its end.
final class LiveRun: @unchecked Sendable {  // `lock` guards `output`.
    let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    private let done = DispatchGroup()

    /// Starts `flowrun arguments...` in `directory`, with `environment` added to this process's
    /// and NO_COLOR set (GITHUB_ACTIONS left out unless `environment` sets it: the suite run in a
    /// GitHub job must check what it checks elsewhere); stdin is /dev/null, and both pipes are
    /// read as the output comes. With `standardOutput`, stdout goes there instead, and is not read.
    /// With `executable`, that program runs with `arguments` instead (a wrapper such as sh).
    init(
        _ arguments: [String], in directory: URL?, environment: [String: String] = [:], standardOutput: Pipe? = nil,
        executable: String? = nil
    ) throws {
        _ = ChildSignals.restored
        process.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? FlowrunBinary.url
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var inherited = ProcessInfo.processInfo.environment
        inherited["GITHUB_ACTIONS"] = nil
        inherited["GITHUB_STEP_SUMMARY"] = nil  // a test under GitHub Actions must not write to the job's own summary
        process.environment = inherited.merging(["NO_COLOR": "1"].merging(environment) { $1 }) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = standardOutput ?? out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (pipe, isOutput) in standardOutput == nil ? [(out, true), (err, false)] : [(err, false)] {
            done.enter()
            Thread.detachNewThread { [self] in
                while case let data = pipe.fileHandleForReading.availableData, !data.isEmpty {
                    lock.withLock { if isOutput { output += data } else { errors += data } }
                }
                done.leave()
            }
        }
    }

    var stdout: String { lock.withLock { String(decoding: output, as: UTF8.self) } }
    var stderr: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }

    /// Waits until stdout contains `text`, for at most `seconds` (a hang guard), polling off the
    /// threads the suite's async tests share.
    func waitFor(_ text: String, seconds: Double = 120) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if stdout.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return stdout.contains(text)
    }

    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits, for at most `seconds` (a hang guard), until flowrun has started the thread that
    /// takes its signals: from then on a signal is handled, whatever the main thread does.
    func waitForSignalThread(seconds: Double = 120) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if hasSignalThread { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return hasSignalThread
    }

    /// Whether flowrun's signal thread (named in /proc) has started.
    private var hasSignalThread: Bool {
        let tasks = "/proc/\(process.processIdentifier)/task"
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return threads.contains { FileManager.default.contents(atPath: "\(tasks)/\($0)/comm") == Data("flowrun.signals\n".utf8) }
    }

    /// Waits for the exit (at most `seconds` when given, then SIGTERM, and SIGKILL 5 s later if
    /// that did not end it either: a hung run fails its test instead of hanging the suite) and
    /// returns its status. It polls with Task.sleep and waits for the readers through a
    /// continuation: a blocking wait would hold one of the few threads the async tests share.
    func wait(seconds: Double? = 120) async -> Int32 {
        if let seconds {
            await poll(seconds: seconds)
            if process.isRunning { process.terminate() }
            await poll(seconds: 5)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        while process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        await withCheckedContinuation { (read: CheckedContinuation<Void, Never>) in
            done.notify(queue: .global()) { read.resume() }
        }
        process.waitUntilExit()  // at once now: the process has ended
        return process.terminationStatus
    }

    private func poll(seconds: Double) async {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    }
}
