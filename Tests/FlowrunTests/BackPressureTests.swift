import Foundation
import Glibc
import Testing

/// A reader that does not keep up slows the tasks down, as under make: flowrun stops reading a
/// task's pipe, the task blocks in write(2), and memory stays small whatever the task prints.
/// bench/backpressure_bench.py runs the same with 50 MB and prints the numbers.
@Suite struct BackPressureTests {
    static let lines = 60_000
    /// 99 characters and a newline per line: 6 MB in all, several times what flowrun holds
    /// before it stops reading (about 1 MB: `EventBus.defaultMaxHeldBytes` of events).
    static let flood = """
        import os, sys
        open("pid", "w").write(str(os.getpid()))
        block = (b"x" * 99 + b"\\n") * 1000
        for _ in range(\(lines) // 1000): sys.stdout.buffer.write(block)
        sys.stdout.flush()
        open("marker", "w").close()
        """

    /// flowrun with its stdout on a pipe that nobody reads until `readAll`.
    final class UnreadRun: @unchecked Sendable {  // used by one thread at a time
        let folder: TemporaryFolder
        let process = Process()
        private let output = Pipe()

        init() throws {
            folder = try TemporaryFolder()
            try Data(BackPressureTests.flood.utf8).write(to: folder.url.appendingPathComponent("flood.py"))
            try Data("version: 1\nname: flood\ntasks:\n  flood: {shell: [python3, flood.py]}\n".utf8)
                .write(to: folder.url.appendingPathComponent("flow.yaml"))
            process.executableURL = FlowrunBinary.url
            process.arguments = ["run", "--events", "plain", "flow.yaml"]
            process.currentDirectoryURL = folder.url
            // Plain lines, not a GitHub Actions log (whose groups wait in a file until the task ends).
            process.environment = ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { $1 }.filter { $0.key != "GITHUB_ACTIONS" }
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        func exists(_ name: String) -> Bool {
            FileManager.default.fileExists(atPath: folder.url.appendingPathComponent(name).path)
        }

        /// The task's process id, once it has written it (at most 120 s: a hang guard).
        func taskPID() -> Int32? {
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                if let text = try? String(contentsOf: folder.url.appendingPathComponent("pid"), encoding: .utf8), let pid = Int32(text) {
                    return pid
                }
                usleep(10_000)
            }
            return nil
        }

        /// Waits until the task sits in write(2) and writes no more, seen the same on 20 looks in a
        /// row, 50 ms apart: once held back it stays so, for as long as nobody reads, whatever the
        /// machine's speed (at most 120 s in all: a hang guard). Returns the bytes it wrote by then,
        /// or nil if it got to its end instead.
        func waitUntilHeldBack(_ pid: Int32) -> Int? {
            let deadline = Date().addingTimeInterval(120)
            var last: Int?
            var same = 0
            while Date() < deadline && !exists("marker") {
                let written = Self.bytesWritten(by: pid)
                if let written, written == last, Self.isInWrite(pid) {
                    same += 1
                    if same == 20 { return written }
                } else {
                    same = 0
                }
                last = written
                usleep(50_000)
            }
            return nil
        }

        /// Reads everything flowrun prints until it exits (at most 120 s: a hang guard): the lines
        /// of the task, counted and checked, and the others, kept.
        func readAll() -> (status: Int32, floodLines: Int, badLines: Int, other: [String]) {
            var floodLines = 0, badLines = 0
            var other: [String] = []
            var partial: [UInt8] = []
            let expected = Array("[flood] | ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 99)
            let killer = DispatchWorkItem { [process] in kill(process.processIdentifier, SIGKILL) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 600, execute: killer)
            while case let data = output.fileHandleForReading.availableData, !data.isEmpty {
                partial += data
                var start = 0
                while let newline = partial[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    let line = partial[start..<newline]
                    if line.starts(with: "[flood] |".utf8) {
                        if line.elementsEqual(expected) { floodLines += 1 } else { badLines += 1 }
                    } else {
                        other.append(String(decoding: line, as: UTF8.self))
                    }
                    start = newline + 1
                }
                partial.removeFirst(start)
            }
            killer.cancel()
            process.waitUntilExit()
            return (process.terminationStatus, floodLines, badLines, other)
        }

        /// What `/proc/PID/io` says the process has written.
        static func bytesWritten(by pid: Int32) -> Int? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return nil }
            return text.split(separator: "\n").first { $0.hasPrefix("wchar:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) }
        }

        /// Whether the process is in the write system call (`/proc/PID/syscall`).
        static func isInWrite(_ pid: Int32) -> Bool {
            #if arch(x86_64)
            let write = "1"
            #else
            let write = "64"  // arm64 and other architectures with the generic table
            #endif
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8) else { return false }
            return text.split(separator: " ").first == Substring(write)
        }

        /// flowrun's resident memory in MB (`VmRSS`).
        var residentMegabytes: Double? {
            guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kib = Double(line.split(separator: " ")[1])
            else { return nil }
            return kib * 1024 / 1e6
        }
    }

    @Test func aTaskIsHeldBackWhileNobodyReadsAndLosesNothing() async throws {
        // The waits block: off the threads the suite's async tests share.
        let run = try UnreadRun()
        let pid = try #require(try await offThePool { run.taskPID() })
        let written = try await offThePool { run.waitUntilHeldBack(pid) }
        #expect(!run.exists("marker"), "the task printed everything although nobody read flowrun's output")
        let held = try #require(written)
        #expect(held < 3_000_000, "held back only after \(held) bytes")
        let memory = try #require(run.residentMegabytes)
        #expect(memory < 64, "flowrun holds \(memory) MB")

        let (status, floodLines, badLines, other) = try await offThePool { run.readAll() }
        #expect(status == 0)
        #expect(floodLines == Self.lines)
        #expect(badLines == 0)
        #expect(run.exists("marker"))
        #expect(other.contains { $0.hasPrefix("[flood] succeeded in ") })
        #expect(other.last?.hasPrefix("workflow flood succeeded") == true, "\(other)")
    }

    @Test func ctrlCStillStopsATaskWhileNobodyReads() async throws {
        let run = try UnreadRun()
        let pid = try #require(try await offThePool { run.taskPID() })
        try #require(try await offThePool { run.waitUntilHeldBack(pid) } != nil)
        kill(run.process.processIdentifier, SIGINT)
        // The task is stopped (gone, or a zombie until flowrun reaps it) while nobody reads yet.
        let deadline = Date().addingTimeInterval(120)  // a hang guard only
        func stopped() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
        }
        while !stopped() && Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(stopped())
        #expect(!run.exists("marker"))
        let (status, _, badLines, _) = try await offThePool { run.readAll() }
        #expect(status == 130)
        #expect(badLines <= 1)  // the line the task was killed in the middle of
        // No "[flood] cancelled" line is asked for: once only writing is left and stdout takes
        // nothing for 0.5 s, flowrun exits without it (SignalTests covers that exit), so whether
        // it is there depends on how soon this reader starts.
    }
}
