import Foundation
import Glibc
import Testing

@testable import FlowFiles

@Suite struct TemporaryFileTests {
    func makeFolder() throws -> String {
        let path = NSTemporaryDirectory() + "flowrun-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func anAtomicFileAppearsOnlyWholeWithTheModeItsAccessGives() throws {
        let folder = try makeFolder()
        defer { LeftoverSweep.removeTree(folder) }
        let file = try AtomicFile(destination: folder + "/new/out.txt", access: .shared)
        try file.write("hello")
        #expect(!FileManager.default.fileExists(atPath: folder + "/new/out.txt"))
        #expect(names(in: folder + "/new").count == 1 && names(in: folder + "/new")[0].hasPrefix(".out.txt.flowrun-"))
        try file.commit()
        #expect(try String(contentsOfFile: folder + "/new/out.txt", encoding: .utf8) == "hello")
        #expect(names(in: folder + "/new") == ["out.txt"])

        try AtomicFile.write("secret", to: folder + "/state/log", access: .owner)
        var info = stat()
        #expect(stat(folder + "/state/log", &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(folder + "/state", &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    /// Making a private folder inside the user's folder (`.flowrun` in a project, the cache
    /// in `~/.cache`) leaves the user's folder as it was; only the private folder is narrowed.
    @Test func aPrivateFolderIsMadeWithoutNarrowingTheFoldersAboveIt() throws {
        let folder = try makeFolder()
        defer { LeftoverSweep.removeTree(folder) }
        chmod(folder, 0o755)
        try Folders.make(folder + "/.flowrun/runs", access: .owner)
        var info = stat()
        #expect(stat(folder, &info) == 0 && info.st_mode & 0o777 == 0o755)
        #expect(stat(folder + "/.flowrun", &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(folder + "/.flowrun/runs", &info) == 0 && info.st_mode & 0o777 == 0o700)
        try FileManager.default.createDirectory(atPath: folder + "/old", withIntermediateDirectories: false)
        chmod(folder + "/old", 0o755)
        try Folders.make(folder + "/old", access: .owner)
        #expect(stat(folder + "/old", &info) == 0 && info.st_mode & 0o777 == 0o700, "the folder asked for is narrowed")
    }

    @Test func aDiscardedFileLeavesTheDestinationAsItWas() throws {
        let folder = try makeFolder()
        defer { LeftoverSweep.removeTree(folder) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: folder + "/out"))
        do {
            let file = try AtomicFile(destination: folder + "/out", access: .shared)
            try file.write("new")
        }
        #expect(try String(contentsOfFile: folder + "/out", encoding: .utf8) == "old")
        #expect(names(in: folder) == ["out"])
    }

    /// A leftover nobody holds is removed; one a live owner holds (here this process, through
    /// another descriptor, which `flock` treats as another owner) stays.
    @Test func theSweepRemovesLeftoversWhoseOwnerIsGoneAndKeepsLiveOnes() throws {
        let folder = try makeFolder()
        defer { LeftoverSweep.removeTree(folder) }
        let live = try AtomicFile(destination: folder + "/live", access: .shared)
        let liveFolder = try TemporaryFolder(in: folder, for: "tree", access: .shared)
        try Data("half".utf8).write(to: URL(fileURLWithPath: folder + "/.dead.flowrun-abc"))
        try FileManager.default.createDirectory(atPath: folder + "/.tree.flowrun-def/sub", withIntermediateDirectories: true)
        try Data("user".utf8).write(to: URL(fileURLWithPath: folder + "/mine.flowrun-x"))

        let removed = LeftoverSweep.sweep(folder).sorted()

        #expect(removed == [".dead.flowrun-abc", ".tree.flowrun-def"])
        let expected = ["mine.flowrun-x", (live.temporaryPath as NSString).lastPathComponent, (liveFolder.path as NSString).lastPathComponent]
        #expect(names(in: folder) == expected.sorted())
        live.discard()
        liveFolder.release()
        #expect(LeftoverSweep.sweep(folder) == [(liveFolder.path as NSString).lastPathComponent])
    }

    /// A staging folder a SIGKILLed extraction left, holding names that are not UTF-8 (a
    /// latin-1 tar): its removal read names as Strings, whose U+FFFD matched no file, so the
    /// leftover stayed for every later run (found by bench/decompress_peer.py).
    @Test func aLeftoverWithNamesThatAreNotUTF8IsRemovedWhole() throws {
        let folder = try makeFolder()
        defer { LeftoverSweep.removeTree(folder) }
        let leftover = folder + "/.to.flowrun-killed"
        try FileManager.default.createDirectory(atPath: leftover + "/top/names", withIntermediateDirectories: true)
        for name: [UInt8] in [[0x62, 0x61, 0x64, 0xFF, 0xFE], [0x63, 0x61, 0x66, 0xE9]] {
            let path = Array((leftover + "/top/names/").utf8) + name
            let descriptor = open(path.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o644)
            try #require(descriptor >= 0)
            close(descriptor)
        }

        #expect(LeftoverSweep.sweep(folder) == [".to.flowrun-killed"])
        #expect(names(in: folder).isEmpty)
    }

    /// A process killed with SIGKILL while it held a leftover's lock: the lock is free once it
    /// is gone, and the sweep then removes the leftover.
    @Test func aLeftoverOfAKilledProcessIsRemovedOnceItIsGone() throws {
        let folder = try makeFolder()
        defer { LeftoverSweep.removeTree(folder) }
        let leftover = folder + "/.out.flowrun-killed"
        try Data("half".utf8).write(to: URL(fileURLWithPath: leftover))
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            "import fcntl, sys, time\nf = open(sys.argv[1])\nfcntl.flock(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(600)",
            leftover,
        ]
        let output = Pipe()
        holder.standardOutput = output
        try holder.run()
        _ = output.fileHandleForReading.readData(ofLength: 7)  // "locked": the lock is held

        #expect(LeftoverSweep.sweep(folder).isEmpty)
        #expect(names(in: folder) == [".out.flowrun-killed"])
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        #expect(LeftoverSweep.sweep(folder) == [".out.flowrun-killed"])
        #expect(names(in: folder).isEmpty)
    }

    @Test(arguments: [
        (".out.txt.flowrun-1x2y3z", true), (".a.flowrun-AbC123", true), (".flowrun-settings", false),
        ("out.flowrun-abc", false), (".a.flowrun-", false), (".a.flowrun-has-dash", false), (".a.flowrun-abcdefghijklmn", false),
    ])
    func leftoversAreKnownByTheirWholeName(name: String, isTemporary: Bool) {
        #expect(TemporaryName.isTemporary(name) == isTemporary)
        #expect(TemporaryName.isTemporary(TemporaryName.make(for: "out.txt")))
    }

    @Test func anAnonymousFileHasNoNameAndOnlyItsOwnerCanOpenIt() throws {
        let folder = try makeFolder()
        defer { LeftoverSweep.removeTree(folder) }
        let descriptor = try TemporaryFile.anonymous(in: folder)
        defer { close(descriptor) }
        var info = stat()
        #expect(fstat(descriptor, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_nlink == 0)
        #expect(names(in: folder).isEmpty)
    }
}
