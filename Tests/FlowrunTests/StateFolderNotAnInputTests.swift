import Foundation
import Testing

/// flowrun's own state folder (`.flowrun/` beside the workflow file) is never one of a task's
/// files, as git's walks never take `.git/`: a trailing `**` or a folder named as an input
/// walked into it. `combine: {inputs: ["**"], to: out/all.tar}` then archived the run record
/// being written at that moment (cut mid-line) and the private 0600 state files into a 0644
/// tarball, and the task was never up to date, since the state changes with every run.
@Suite struct StateFolderNotAnInputTests {
    typealias Project = UpToDateTests.Project

    @Test func aDoubleStarLeavesOutTheStateFolderAndItsTaskIsUpToDateOnTheNextRun() async throws {
        let project = try Project(
            """
            version: 1
            tasks:
              pack: {combine: {inputs: ["**"], to: out/all.tar, format: tar}}

            """, files: ["src/a.txt": "a\n", "src/.flowrun": "a file of that name is read\n"])
        let first = try await project.run()
        #expect(first.ran == ["pack"])
        #expect(try await Self.names(in: project.url.appendingPathComponent("out/all.tar").path) == ["flow.yaml", "src/.flowrun", "src/a.txt"])

        let second = try await project.run()
        #expect(second.ran.isEmpty)
        #expect(second.upToDate == ["pack"])

        // A state file named on purpose is still read.
        try project.write("flow.yaml", "version: 1\ntasks:\n  pack: {combine: {inputs: [.flowrun/.gitignore], to: kept.txt}}\n")
        _ = try await project.run()
        #expect(try project.read("kept.txt") == project.read(".flowrun/.gitignore"))
    }

    /// The entry names of a tar, as bsdtar lists them.
    static func names(in archive: String) async throws -> [String] {
        let listing = Process()
        listing.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        listing.arguments = ["bsdtar", "-tf", archive]
        let pipe = Pipe()
        listing.standardOutput = pipe
        try listing.run()
        let output = try await offThePool {
            defer { listing.waitUntilExit() }
            return pipe.fileHandleForReading.readDataToEndOfFile()
        }
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
    }
}
