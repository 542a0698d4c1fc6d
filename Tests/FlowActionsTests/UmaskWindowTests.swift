import FlowFiles
import Foundation
import Glibc
import Testing

@testable import FlowActions

/// libarchive reads the umask by setting it to 0 and back (`DiskWriter`): whatever flowrun
/// creates on another thread meanwhile, a task's child process included, must still get the
/// modes the user's umask gives. A race, so each test makes many creations during extractions.
@Suite struct UmaskWindowTests {
    static let umask = DecompressWriteTests.umask

    /// `touch out` in a shell task gives 644 with umask 022, as in the user's own shell, however
    /// many extractions run meanwhile: the child must not inherit a 0 umask.
    @Test(.enabled(if: umask != 0, "a umask of 0 cannot be told from the window's"))
    func aShellTaskCreatesFilesWithTheUsersUmaskWhileExtractionsRun() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let task = try ShellRunnerTests.tasks(
            """
            version: 1
            tasks:
              touch: {shell: "rm -f out; touch out; stat -c %a out"}
            """, in: folder)[0]
        let expected = String(0o666 & ~Self.umask, radix: 8)
        let loop = OutputLoop()
        defer { loop.end() }
        let runner = ShellRunner(loop: loop)
        var wrong: [String] = []
        try await Self.whileExtracting {
            for _ in 0..<400 {
                let attempt = await ShellRunnerTests.run(task, runner: runner)
                #expect(attempt.result == .succeeded, "\(attempt.stderr)")
                if attempt.stdout != [expected] { wrong.append(attempt.stdout.joined()) }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) of 400 files with another mode than \(expected): \(wrong.prefix(5))")
    }

    /// Temporary files (downloads, combine's output, state) and folders (`mkdir -p`, staging)
    /// get the modes of the user's umask however many extractions run meanwhile.
    @Test(.enabled(if: umask != 0, "a umask of 0 cannot be told from the window's"))
    func filesAndFoldersFlowrunMakesGetTheUsersUmaskWhileExtractionsRun() async throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { FileTree.remove(folder) }
        var wrong: [String] = []
        func check(_ path: String, _ mode: mode_t) {
            var info = stat()
            guard stat(path, &info) == 0 else { return wrong.append("\(path): missing") }
            if info.st_mode & 0o7777 != mode & ~Self.umask { wrong.append("\(path): \(String(info.st_mode & 0o7777, radix: 8))") }
        }
        try await Self.whileExtracting {
            for i in 0..<500 {
                let (descriptor, path) = try TemporaryFile.create(in: folder, for: "f\(i)", access: .shared)
                close(descriptor)
                check(path, 0o666)
                let owned = try TemporaryFile.create(in: folder, for: "o\(i)", access: .owner)
                close(owned.descriptor)
                check(owned.path, 0o600)
                try Folders.make(folder + "/d\(i)/inner", access: .shared)
                check(folder + "/d\(i)", 0o777)
                check(folder + "/d\(i)/inner", 0o777)
                try FileTree.makeFolders(folder + "/t\(i)/inner")
                check(folder + "/t\(i)/inner", 0o777)
                let staging = try TemporaryFolder(in: folder, for: "s\(i)", access: .shared)
                check(staging.path, 0o777)
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) files or folders with another mode than the umask gives: \(wrong.prefix(5))")
    }

    /// Runs `body` while two threads extract archives of 400 files over and over (not the
    /// cooperative pool, which the extractions would block).
    static func whileExtracting(_ body: () async throws -> Void) async throws {
        let fixtures = try DecompressFixtures()
        defer { fixtures.remove() }
        try fixtures.makeTarOfEmptyFiles()
        let stop = LockedBox(false)
        let finished = DispatchGroup()
        for thread in 0..<2 {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                var round = 0
                while !stop.value {
                    let to = "out-\(thread)-\(round)"
                    fixtures.extract("many.tar", to: to, isCancelled: { stop.value })
                    FileTree.remove(fixtures.path(to))
                    round += 1
                }
            }
        }
        defer {
            stop.update { $0 = true }
            finished.wait()
        }
        try await body()
    }
}
