import Foundation
import Testing

@testable import FlowActions

/// The walk of /proc that finds what a run left behind: every process below this one, each
/// with its parent, and nothing below the process spared (the watchdog).
@Suite struct LeftoverDescendantsTests {
    @Test func aChildAndItsOwnChildAreFoundWithTheirParentsAndNotBelowTheOneSpared() throws {
        // sh starts a background sleep, tells its pid, then becomes a sleep itself: a child of
        // this process and that child's child, both alive while the walk runs.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "sleep 60 & echo $!; exec sleep 60"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let child = process.processIdentifier
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")), let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
            line += byte
        }
        let grandchild = try #require(pid_t(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        defer {
            kill(grandchild, SIGKILL)
            kill(child, SIGKILL)
            process.waitUntilExit()
        }

        let found = LeftoverProcesses.descendants(sparing: nil)
        let foundChild = try #require(found.first { $0.pid == child })
        #expect(foundChild.parent == getpid())
        #expect(!foundChild.isZombie)
        let foundGrandchild = try #require(found.first { $0.pid == grandchild })
        #expect(foundGrandchild.parent == child)
        #expect(!foundGrandchild.isZombie)
        #expect(!found.contains { $0.pid == getpid() })

        let spared = LeftoverProcesses.descendants(sparing: child)
        #expect(!spared.contains { $0.pid == child || $0.pid == grandchild })
    }
}
