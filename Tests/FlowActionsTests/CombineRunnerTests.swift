import CArchive
import FlowEngine
import FlowFiles
import FlowModel
import FlowTestSupport
import Foundation
import Testing

@testable import FlowActions

/// `CombineRunner` with concat, tar, tar.gz and zip: real files in a temporary folder.
@Suite struct CombineRunnerTests {
    typealias Support = CombineTestSupport

    @Test func concatWritesTheInputsBytesInOrderWithPatternsExpandedInSortedOrder() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("head\n", to: "\(folder)/head.txt")
        for name in ["b", "c", "a"] { try Support.write("\(name)\n", to: "\(folder)/parts/\(name).txt") }
        let task = try Support.task("inputs: [head.txt, \"parts/*.txt\"]\nto: out/all.txt", in: folder)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded)
        #expect(try String(contentsOfFile: "\(folder)/out/all.txt", encoding: .utf8) == "head\na\nb\nc\n")
        #expect(Support.contents(of: "\(folder)/out") == ["all.txt"])
        let last = try #require(attempt.progress.last)
        #expect(last.done == 11 && last.total == 11 && last.unit == .bytes)
    }

    @Test func progressComesAtMostTenTimesASecondAndEndsAtTheTotal() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for index in 0..<300 { try Support.write("\(index % 10)", to: "\(folder)/parts/\(1000 + index)") }
        let task = try Support.task("inputs: [\"parts/*\"]\nto: all.txt", in: folder)

        let started = ProcessInfo.processInfo.systemUptime
        let attempt = await Support.run(task)
        let elapsed = ProcessInfo.processInfo.systemUptime - started

        #expect(attempt.result == .succeeded)
        // One report a block (300 here) without the limit; an upper bound only, so a slow
        // machine loosens it and cannot fail it.
        #expect(attempt.progress.count <= 2 + Int(elapsed * 10), "\(attempt.progress.count) in \(elapsed) s")
        #expect(attempt.progress.last?.done == 300 && attempt.progress.last?.total == 300)
    }

    /// `**` is any number of folders, none included, as the up-to-date check reads the same
    /// pattern (and go-task, .gitignore and bash's globstar): glob(3) alone took it for `*`, so
    /// `src/**/*.c` read only the files one folder down and the task succeeded without the rest.
    @Test func aDoubleStarPatternReadsTheFilesAtEveryDepth() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("top\n", to: "\(folder)/src/top.c")
        try Support.write("one\n", to: "\(folder)/src/a/one.c")
        try Support.write("two\n", to: "\(folder)/src/a/b/two.c")
        try Support.write("hidden\n", to: "\(folder)/src/.cache/h.c")
        try Support.write("notes\n", to: "\(folder)/src/a/notes.txt")
        let task = try Support.task("inputs: [\"src/**/*.c\"]\nto: out/all.c", in: folder)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded)
        // Sorted by bytes: src/a/b/two.c, src/a/one.c, src/top.c; a dot folder only when spelt.
        #expect(try String(contentsOfFile: "\(folder)/out/all.c", encoding: .utf8) == "two\none\ntop\n")

        // A `**` at the end is every file under its folder, as a folder is in `inputs:`.
        let everything = try Support.task("inputs: [\"src/a/**\"]\nto: out/a.txt", in: folder)
        #expect(await Support.run(everything).result == .succeeded)
        #expect(try String(contentsOfFile: "\(folder)/out/a.txt", encoding: .utf8) == "two\nnotes\none\n")
    }

    /// The folders a `**` walks through are taken by their names, not read again as patterns:
    /// the walk globbed `FOLDER/*.c` with the folder's name in it, so `z[1]/` read `z1/`'s files
    /// instead of its own, `x\y/` read `xy/`'s, and an empty `\.git/` read `.git/`'s, which the
    /// up-to-date check never fingerprints (an edit there left the output stale). The files read
    /// are the files the up-to-date check reads for the same pattern.
    @Test func aDoubleStarWalkTakesFolderNamesLiterallyAsTheUpToDateCheckDoes() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("1\n", to: "\(folder)/src/a/1.c")
        try Support.write("2\n", to: "\(folder)/src/x\\y/2.c")
        try Support.write("4\n", to: "\(folder)/src/z[1]/4.c")
        try Support.write("5\n", to: "\(folder)/src/z1/5.c")
        try Support.write("hidden\n", to: "\(folder)/src/.git/h.c")
        try FileManager.default.createDirectory(atPath: "\(folder)/src/\\.git", withIntermediateDirectories: true)
        let task = try Support.task("inputs: [\"src/**/*.c\"]\nto: out/all.c", in: folder)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded)
        // Sorted by bytes: src/a/1.c, src/x\y/2.c, src/z1/5.c, src/z[1]/4.c.
        #expect(try String(contentsOfFile: "\(folder)/out/all.c", encoding: .utf8) == "1\n2\n5\n4\n")
        let read = try CombineInputs(patterns: ["\(folder)/src/**/*.c"], workdir: folder, output: "\(folder)/out/all.c")
        #expect(read.files.map(\.path) == PathGlob.files(matching: "\(folder)/src/**/*.c"))
    }

    @Test func aPatternMatchingNothingFailsNamingItAndLeavesNoFile() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("x", to: "\(folder)/a.txt")
        let task = try Support.task("inputs: [a.txt, \"missing/*.log\"]\nto: all.txt", in: folder)

        let attempt = await Support.run(task)

        let reason = try #require(Support.failureReason(attempt))
        // As the workflow wrote it, as make names a missing prerequisite, not as /tmp/.../missing/*.log.
        #expect(reason == "input pattern 'missing/*.log' matches no file")
        #expect(Support.contents(of: folder) == ["a.txt"])
    }

    @Test func aPatternMatchingOnlyItsOwnOutputIsNamedAsWritten() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("previous", to: "\(folder)/all.txt")
        let task = try Support.task("inputs: [\"./*.txt\"]\nto: all.txt", in: folder)

        let attempt = await Support.run(task)

        #expect(Support.failureReason(attempt) == "input pattern './*.txt' matches no file but the task's outputs")
    }

    /// A `to` that is a folder fails naming `to`, as a download's does (and curl's -o): the
    /// temporary file the reason named was gone by then.
    @Test(arguments: ["concat", "tar", "zip"])
    func aToThatIsAFolderFailsNamingIt(format: String) async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("x", to: "\(folder)/a.txt")
        try FileManager.default.createDirectory(atPath: "\(folder)/out", withIntermediateDirectories: false)
        let task = try Support.task("inputs: [a.txt]\nto: out\nformat: \(format)", in: folder)

        let attempt = await Support.run(task)

        #expect(Support.failureReason(attempt) == "cannot write \(folder)/out: Is a directory")
        #expect(Support.contents(of: folder) == ["a.txt", "out"])
    }

    @Test func aMissingInputFailsNamingItAndLeavesTheOldOutputAsItWas() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("x", to: "\(folder)/a.txt")
        try Support.write("previous", to: "\(folder)/all.txt")
        let task = try Support.task("inputs: [a.txt, gone.txt]\nto: all.txt", in: folder)

        let attempt = await Support.run(task)

        let reason = try #require(Support.failureReason(attempt))
        // As the workflow wrote it, as a pattern that matches nothing is named.
        #expect(reason == "cannot open input 'gone.txt': No such file or directory")
        #expect(try String(contentsOfFile: "\(folder)/all.txt", encoding: .utf8) == "previous")
        #expect(Support.contents(of: folder) == ["a.txt", "all.txt"])
    }

    /// A missing input was named by the path resolved against the workdir (`./sub/../gone.txt`
    /// as `/tmp/.../gone.txt`), whatever the format: now as written, an absolute one too.
    @Test(arguments: [("concat", "all.out"), ("tar", "all.tar"), ("zip", "all.zip"), ("image", "all.png")])
    func aMissingInputIsNamedAsTheWorkflowWroteIt(format: String, to: String) async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("x", to: "\(folder)/a.txt")
        for written in ["./sub/../gone.txt", "\(folder)/./gone.txt"] {
            let task = try Support.task("inputs: [a.txt, '\(written)']\nto: \(to)\nformat: \(format)", in: folder)
            let attempt = await Support.run(task)
            #expect(Support.failureReason(attempt) == "cannot open input '\(written)': No such file or directory")
            #expect(Support.contents(of: folder) == ["a.txt"])
        }
    }

    /// A file whose name is not UTF-8 (`caf\xE9.txt`, as an archive may extract it) matched by
    /// a pattern failed with "cannot open input /tmp/.../caf\u{FFFD}.txt: No such file or
    /// directory" of a file that is there: the name a String cannot hold is said to be so.
    @Test func aMatchWhoseNameIsNotUTF8IsSaidToBeSo() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("x", to: "\(folder)/a.txt")
        let latin1 = Array("\(folder)/caf".utf8) + [0xE9] + Array(".txt".utf8) + [0]
        let descriptor = latin1.withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
        }
        try #require(descriptor >= 0)
        close(descriptor)
        let task = try Support.task("inputs: [\"*.txt\"]\nto: all.out", in: folder)

        let attempt = await Support.run(task)

        #expect(
            Support.failureReason(attempt)
                == "input 'caf\u{FFFD}.txt' (matched by '*.txt') has a name that is not UTF-8 (shown with \u{FFFD}), which flowrun cannot open: rename it")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/all.out"))
    }

    @Test(arguments: ["tar", "tar.gz", "zip"])
    func archivesStoreEachInputUnderItsPathRelativeToTheWorkdir(format: String) async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("notes\n", to: "\(folder)/docs/NOTES.md")
        try Support.write("one", to: "\(folder)/build/b1.txt")
        try Support.write(String(repeating: "two ", count: 100_000), to: "\(folder)/build/b2.txt")
        chmod("\(folder)/build/b1.txt", 0o755)
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/build/b3.txt", withDestinationPath: "b1.txt")
        let task = try Support.task("inputs: [docs/NOTES.md, \"build/b*.txt\"]\nto: out/all.\(format)\nformat: \(format)", in: folder)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded)
        let entries = try Self.entries(of: "\(folder)/out/all.\(format)")
        #expect(entries.map(\.name) == ["docs/NOTES.md", "build/b1.txt", "build/b2.txt", "build/b3.txt"])
        #expect(entries.map(\.contents) == ["notes\n", "one", String(repeating: "two ", count: 100_000), "one"])
        #expect(entries[1].mode & 0o777 == 0o755)
        #expect(entries.allSatisfy { $0.mode & S_IFMT == S_IFREG }, "a link is stored as the file it leads to")
        #expect(Support.contents(of: "\(folder)/out") == ["all.\(format)"])
    }

    @Test func aCancelledCombineStopsBetweenBlocksAndLeavesNothing() throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Three blocks: the first progress report cancels, the next block sees it.
        let big = Data(repeating: 7, count: 3 * InputFile.blockSize)
        try big.write(to: URL(fileURLWithPath: "\(folder)/big.bin"))
        let task = try Support.task("inputs: [big.bin]\nto: out/copy.bin", in: folder)
        guard case .combine(let action) = task.action else { Issue.record("not a combine task"); return }
        let stop = StopFlag()
        let progress = ProgressThrottle(clock: ManualRunLoop()) { _, _, _ in stop.stop() }

        #expect(throws: ActionFailure.cancelled) {
            try CombineJob(action: action, workdir: folder, maxPixels: 100).run(stop: stop, progress: progress)
        }
        #expect(Support.contents(of: "\(folder)/out") == [])
    }

    @Test func aPatternLeavesOutTheOutputAndANamedInputThatIsTheOutputIsRefused() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("a", to: "\(folder)/a.txt")
        try Support.write("old", to: "\(folder)/all.txt")

        let rerun = await Support.run(try Support.task("inputs: [\"*.txt\"]\nto: all.txt", in: folder))
        #expect(rerun.result == .succeeded)
        #expect(try String(contentsOfFile: "\(folder)/all.txt", encoding: .utf8) == "a")

        // Refused at validation (the fixture combine-input-is-to); the job refuses it too.
        #expect(throws: ActionFailure.self) {
            try CombineInputs(patterns: ["\(folder)/a.txt", "\(folder)/all.txt"], workdir: folder, output: "\(folder)/all.txt")
        }
        #expect(try String(contentsOfFile: "\(folder)/all.txt", encoding: .utf8) == "a")
    }

    /// `to` reached by another path (a folder link, `view -> out`) is the output all the same,
    /// as `cat` ("input file is output file") and tar ("file is the archive; not dumped") tell it
    /// by its device and inode: `inputs: ["view/*.txt"], to: out/all.txt` read the last run's
    /// output into the new one, so each green run grew it by a copy of itself.
    @Test func theOutputReachedThroughALinkIsLeftOutOfAPatternAndRefusedWhenNamed() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("a\n", to: "\(folder)/out/a.txt")
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/view", withDestinationPath: "out")
        for _ in 1...2 {
            let attempt = await Support.run(try Support.task("inputs: [\"view/*.txt\"]\nto: out/all.txt", in: folder))
            #expect(attempt.result == .succeeded)
            #expect(try String(contentsOfFile: "\(folder)/out/all.txt", encoding: .utf8) == "a\n")
        }

        let named = await Support.run(try Support.task("inputs: [view/a.txt, view/all.txt]\nto: out/all.txt", in: folder))
        let reason = try #require(Support.failureReason(named))
        #expect(reason.contains("view/all.txt") && reason.contains("is the output"), "\(reason)")
        #expect(try String(contentsOfFile: "\(folder)/out/all.txt", encoding: .utf8) == "a\n")
    }

    /// The up-to-date check leaves a task's declared `outputs` out of its input globs; combine
    /// leaves out the same files, so that what it reads is what is fingerprinted.
    @Test func aPatternLeavesOutTheTasksOtherDeclaredOutputsToo() async throws {
        let folder = try Support.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Support.write("a", to: "\(folder)/a.txt")
        try Support.write("list", to: "\(folder)/logs/list.txt")
        let workflow = "version: 1\ntasks:\n  c:\n    outputs: [logs/]\n    combine: {inputs: [\"**/*.txt\"], to: all.txt}\n"
        let task = try #require(try ShellRunnerTests.tasks(workflow, in: folder).first)

        let attempt = await Support.run(task)

        #expect(attempt.result == .succeeded)
        #expect(try String(contentsOfFile: "\(folder)/all.txt", encoding: .utf8) == "a")
    }

    /// The entries of an archive, read back with libarchive.
    static func entries(of path: String) throws -> [(name: String, contents: String, mode: mode_t)] {
        let archive = try #require(archive_read_new())
        defer { archive_read_free(archive) }
        archive_read_support_format_all(archive)
        archive_read_support_filter_all(archive)
        try #require(archive_read_open_filename(archive, path, 65536) == ARCHIVE_OK)
        var entries: [(name: String, contents: String, mode: mode_t)] = []
        var entry: OpaquePointer?
        while archive_read_next_header(archive, &entry) == ARCHIVE_OK {
            let name = String(cString: archive_entry_pathname(entry))
            var bytes: [UInt8] = []
            var block = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = archive_read_data(archive, &block, block.count)
                try #require(count >= 0)
                if count == 0 { break }
                bytes += block[..<count]
            }
            entries.append((name, String(decoding: bytes, as: UTF8.self), archive_entry_mode(entry)))
        }
        return entries
    }
}
