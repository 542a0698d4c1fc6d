import Crypto
import Foundation
import Testing

@testable import FlowState

/// The task state file: read back by each task's index or id, a kill mid-run keeps what had
/// finished (the journal), and a file that is not whole and ours is never trusted.
@Suite struct TaskStatesTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("task-states-\(UUID().uuidString)").path
    var folder: StateFolder { StateFolder(path: base + "/.flowrun") }

    /// A fingerprint part's digest: a SHA-256.
    static func hex(_ seed: String) -> String { FileRecord.hex(SHA256.hash(data: Data(seed.utf8))) }

    static func state(_ id: String, _ seed: String = "1") -> TaskState {
        let fingerprint = TaskFingerprint(
            definition: hex(id + seed + "d"), environment: hex("e"), inputs: hex(id + seed + "i"), needs: hex("n"))
        let file = FileRecord(
            size: 3, modifiedNanoseconds: 7, changedNanoseconds: 8, inode: 9, digest: InMemoryFileSystem.digest("contents"),
            hashedAtNanoseconds: 11)
        return TaskState(
            id: id, record: TaskRecord(fingerprint: fingerprint, outputs: hex(id + "o")),
            inputs: [StampedFile(pattern: 0, path: "/w/in/" + id, record: file)],
            outputs: [StampedFile(pattern: 0, path: "/w/out/" + id, record: file), StampedFile(pattern: 1, path: "/w/log", record: file)])
    }

    func states(_ workflow: String = "/w/flow.yaml") -> TaskStates {
        TaskStates(folder: folder, workflowFile: workflow)
    }

    func read(_ states: TaskStates, _ id: String, at index: Int) -> TaskState? {
        states.stored(at: index, id: id).map {
            TaskState(id: $0.id, record: $0.record, inputs: $0.files(outputs: false), outputs: $0.files(outputs: true))
        }
    }

    @Test func whatATaskLeftIsReadBackWholeByItsIndexOrItsID() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let written = states()
        try written.recordSuccess(Self.state("a"))
        try written.recordSuccess(Self.state("b"))
        try written.compact(plan: ["a", "b"])
        #expect(!FileManager.default.fileExists(atPath: written.journalPath), "folded into the file")

        let reread = states()
        #expect(reread.ignoredProblem == nil)
        #expect(read(reread, "a", at: 0) == Self.state("a"))
        #expect(read(reread, "b", at: 1) == Self.state("b"))
        // The plan changed: a task is found by its id, never taken for the one now at its index.
        #expect(read(reread, "b", at: 0) == Self.state("b"))
        #expect(read(reread, "c", at: 0) == nil)
        #expect(read(reread, "a", at: 7) == Self.state("a"))
    }

    @Test func successesJournaledAsTheyHappenSurviveAKillBeforeTheEndOfTheRun() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            let killed = states()
            try killed.recordSuccess(Self.state("a"))
            try killed.recordSuccess(Self.state("b"))
            try killed.forget("b", at: 1)
            // No compact(): as if the run were killed here.
        }
        // A torn last entry, as a kill in the middle of a write leaves.
        let handle = try #require(FileHandle(forWritingAtPath: states().journalPath))
        handle.seekToEndOfFile()
        handle.write(Data([200, 0, 0, 0, 1, 2, 3]))
        try handle.close()

        let reread = states()
        #expect(read(reread, "a", at: 0) == Self.state("a"))
        #expect(reread.stored(at: 1, id: "b") == nil)
        // Appending on after the torn entry, and folding in, keeps both runs' work.
        try reread.recordSuccess(Self.state("c"))
        try reread.compact(plan: ["c"])
        let folded = states()
        #expect(read(folded, "a", at: 1) == Self.state("a"))
        #expect(read(folded, "c", at: 0) == Self.state("c"))
        #expect(folded.stored(at: 2, id: "b") == nil)
    }

    /// A run that reads a journal with a torn last entry, and is killed too: what it journaled
    /// is read back by the next run (the torn bytes are cut off before it appends, as ninja cuts
    /// its deps log), so a task it was about to run again is not left up to date.
    @Test func whatARunJournalsAfterATornEntrySurvivesItsOwnKill() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            let killed = states()
            try killed.recordSuccess(Self.state("a"))
            try killed.recordSuccess(Self.state("b"))
        }
        let handle = try #require(FileHandle(forWritingAtPath: states().journalPath))
        handle.seekToEndOfFile()
        handle.write(Data([200, 0, 0, 0, 1, 2, 3]))
        try handle.close()
        do {
            let killedAgain = states()
            try killedAgain.forget("a", at: 0)  // about to run again
            try killedAgain.recordSuccess(Self.state("c"))
            // No compact(): killed as well.
        }

        let reread = states()
        #expect(reread.stored(at: 0, id: "a") == nil, "a was running again when the run was killed")
        #expect(read(reread, "b", at: 1) == Self.state("b"))
        #expect(read(reread, "c", at: 2) == Self.state("c"))
    }

    /// A flipped byte in a whole journal entry (not a torn last one) ended the journal without a
    /// word, and the entry lost was the forgetting of a task about to run again: its older
    /// success counted, so it was up to date though its run never ended. The damage is now
    /// said, naming the file and the entry, and nothing kept counts; the state is written anew.
    @Test func aDamagedJournalEntryIsSaidAndNoKeptSuccessCounts() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let first = states()
        try first.recordSuccess(Self.state("a"))
        try first.recordSuccess(Self.state("b"))
        try first.compact(plan: ["a", "b"])
        do {
            let killed = states()
            try killed.forget("a", at: 0)  // about to run again, then killed
            try killed.recordSuccess(Self.state("c"))
        }
        let url = URL(fileURLWithPath: states().journalPath)
        var journal = try Data(contentsOf: url)
        let firstEntry = TaskStates.journalMagic.count + 4 + 4 + "/w/flow.yaml".utf8.count
        journal[firstEntry + 4 + TaskStateBytes.digestSize + 1] ^= 0x01  // the `a` the entry forgets
        try journal.write(to: url)

        let reread = states()
        #expect(
            reread.ignoredProblem?.contains("\(reread.journalPath): entry 1 (at byte \(firstEntry)) is damaged") == true,
            "\(reread.ignoredProblem ?? "no word")")
        #expect(reread.stored(at: 0, id: "a") == nil, "its forgetting was the damaged entry")
        #expect(reread.stored(at: 1, id: "b") == nil)
        #expect(reread.stored(at: 2, id: "c") == nil)
        try reread.recordSuccess(Self.state("b"))
        try reread.compact(plan: ["a", "b", "c"])
        let after = states()
        #expect(after.ignoredProblem == nil)
        #expect(read(after, "b", at: 1) == Self.state("b"))
        #expect(after.stored(at: 0, id: "a") == nil)
    }

    /// An entry whose length was flipped to point past the end of the file was taken for a torn
    /// last entry, and the journal ended there without a word. Its bytes are all there, with the
    /// SHA-256 they were written with: it is said as damaged, in the middle or last, as a flipped
    /// byte elsewhere in an entry is; a torn last entry (the bytes cut short) is still not.
    @Test(arguments: [0, 1, 2])
    func aLengthFlippedPastTheEndIsSaidAsDamage(entry: Int) throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        do {
            let killed = states()
            try killed.recordSuccess(Self.state("a"))
            try killed.recordSuccess(Self.state("b"))
            try killed.forget("b", at: 1)  // a forgetting is entry 3, the last
        }
        let url = URL(fileURLWithPath: states().journalPath)
        var journal = try Data(contentsOf: url)
        var start = TaskStates.journalMagic.count + 4 + 4 + "/w/flow.yaml".utf8.count
        for _ in 0..<entry {
            start += 4 + TaskStateBytes.digestSize + Int(journal[start]) + Int(journal[start + 1]) << 8
        }
        journal[start + 3] ^= 0x40  // 1 GiB more
        try journal.write(to: url)

        let reread = states()
        #expect(
            reread.ignoredProblem?.contains("\(reread.journalPath): entry \(entry + 1) (at byte \(start)) is damaged") == true,
            "\(reread.ignoredProblem ?? "no word")")
        #expect(reread.stored(at: 0, id: "a") == nil)
        #expect(reread.stored(at: 1, id: "b") == nil)
    }

    /// A crash after the new file is renamed into place but before the journal is removed: the
    /// journal is replayed over the file it was folded into, which changes nothing.
    @Test func aJournalReplayedOverTheFileItWasFoldedIntoChangesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let first = states()
        try first.recordSuccess(Self.state("a", "old"))
        try first.compact(plan: ["a"])
        let second = states()
        try second.recordSuccess(Self.state("a", "new"))
        try second.recordSuccess(Self.state("b"))
        let journal = try Data(contentsOf: URL(fileURLWithPath: second.journalPath))
        try second.compact(plan: ["a", "b"])
        try journal.write(to: URL(fileURLWithPath: second.journalPath))

        let reread = states()
        #expect(read(reread, "a", at: 0) == Self.state("a", "new"))
        #expect(read(reread, "b", at: 1) == Self.state("b"))
    }

    /// A file of version 2, as the flowrun before this one wrote it (each file's SHA-256, 32
    /// bytes, where this one keeps its XXH3-128, 16), is not read: it is said to be ignored, as
    /// another flowrun's, its tasks have no success kept (so they run once), and the end of a
    /// run that changed something writes the file in this version.
    @Test func aFileOfTheSHA256VersionIsIgnoredSaidSoAndWrittenAnewInThisOne() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let path = states().path
        try Self.version2File(of: Self.state("a"), workflow: "/w/flow.yaml").write(to: URL(fileURLWithPath: path))

        let found = states()
        #expect(
            found.ignoredProblem
                == "\(path) was written by another flowrun (state format 2; this one reads 3); it is ignored (its tasks run again) and will be written anew")
        #expect(found.stored(at: 0, id: "a") == nil)
        #expect(found.isEmpty)

        try found.recordSuccess(Self.state("b"))
        try found.compact(plan: ["b"])
        let rewritten = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(rewritten[TaskStates.magic.count] == UInt8(TaskStates.version))
        let reread = states()
        #expect(reread.ignoredProblem == nil)
        #expect(read(reread, "b", at: 0) == Self.state("b"))
    }

    /// A journal of the version before (its entries' files with 32-byte digests) is never read
    /// as this one's: the whole state is ignored, and said so, as with a damaged entry.
    @Test func aJournalOfTheVersionBeforeIgnoresTheStateAndSaysSo() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let written = states()
        try written.recordSuccess(Self.state("a"))
        try written.compact(plan: ["a"])
        let journaled = states()
        try journaled.recordSuccess(Self.state("b"))
        var journal = try Data(contentsOf: URL(fileURLWithPath: journaled.journalPath))
        journal[TaskStates.journalMagic.count] = 1
        try journal.write(to: URL(fileURLWithPath: journaled.journalPath))

        let found = states()
        #expect(found.ignoredProblem?.contains("\(found.journalPath): was written by another flowrun (journal format 1; this one reads 2)") == true)
        #expect(found.stored(at: 0, id: "a") == nil)
    }

    /// The bytes version 2 wrote for one task: the layout of this one with each file's digest a
    /// SHA-256 of 32 bytes, then the CRC-32 of the rest.
    static func version2File(of state: TaskState, workflow: String) -> Data {
        var bytes = TaskStates.magic
        TaskStateBytes.appendInteger(UInt32(2), to: &bytes)
        TaskStateBytes.appendText(workflow, to: &bytes)
        TaskStateBytes.appendInteger(UInt32(1), to: &bytes)
        TaskStateBytes.appendText(state.id, to: &bytes)
        let fingerprint = state.record.fingerprint
        for hex in [fingerprint.definition, fingerprint.environment, fingerprint.inputs, fingerprint.needs, state.record.outputs, fingerprint.value] {
            TaskStateBytes.appendDigest(hex, to: &bytes)
        }
        TaskStateBytes.appendInteger(UInt32(state.inputs.count), to: &bytes)
        TaskStateBytes.appendInteger(UInt32(state.outputs.count), to: &bytes)
        for file in state.inputs + state.outputs {
            TaskStateBytes.appendInteger(UInt32(file.pattern), to: &bytes)
            TaskStateBytes.appendText(file.path, to: &bytes)
            let record = file.record
            for value in [record.size, record.modifiedNanoseconds, record.changedNanoseconds, Int64(bitPattern: record.inode), record.hashedAtNanoseconds] {
                TaskStateBytes.appendInteger(value, to: &bytes)
            }
            TaskStateBytes.appendDigest(hex("contents of \(file.path)"), to: &bytes)
        }
        var checksum = StateChecksum()
        bytes.withUnsafeBytes { checksum.update($0) }
        TaskStateBytes.appendInteger(checksum.value, to: &bytes)
        return Data(bytes)
    }

    /// Another version's file, one cut short at any length, or one with any byte changed: none
    /// is trusted, each is said to be ignored, and the end of the run writes the file anew.
    @Test func aDamagedCutShortOrOtherVersionFileIsIgnoredAndWrittenAnew() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let written = states()
        try written.recordSuccess(Self.state("a"))
        try written.compact(plan: ["a"])
        let whole = try Data(contentsOf: URL(fileURLWithPath: written.path))
        var damaged: [Data] = [whole.prefix(whole.count - 1), whole.prefix(whole.count / 2), whole.prefix(10)]
        for offset in stride(from: 0, to: whole.count, by: 7) {
            var flipped = whole
            flipped[offset] ^= 0x20
            damaged.append(flipped)
        }
        var otherVersion = whole
        otherVersion[TaskStates.magic.count] = 9
        damaged.append(otherVersion)
        for bytes in damaged {
            try bytes.write(to: URL(fileURLWithPath: written.path))
            let found = states()
            #expect(found.ignoredProblem != nil)
            #expect(found.stored(at: 0, id: "a") == nil)
            #expect(found.isEmpty)
        }
        // Written anew at the end of the next run, with what that run did.
        let next = states()
        try next.recordSuccess(Self.state("b"))
        try next.compact(plan: ["b"])
        let rebuilt = states()
        #expect(rebuilt.ignoredProblem == nil)
        #expect(read(rebuilt, "b", at: 0) == Self.state("b"))
        // The version byte said which: another flowrun's file.
        try otherVersion.write(to: URL(fileURLWithPath: written.path))
        #expect(states().ignoredProblem?.contains("another flowrun") == true)
    }

    @Test func twoWorkflowsSharingAFolderKeepTheirOwnState() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let one = states("/w/one.yaml")
        try one.recordSuccess(Self.state("a"))
        try one.compact(plan: ["a"])
        #expect(states("/w/two.yaml").isEmpty)
        #expect(read(states("/w/one.yaml"), "a", at: 0) == Self.state("a"))
    }

    /// A run of some targets only: the other tasks' state is kept, after the plan's.
    @Test func tasksNotInThePlanAreKept() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let all = states()
        for id in ["a", "b", "c"] { try all.recordSuccess(Self.state(id)) }
        try all.compact(plan: ["a", "b", "c"])
        let some = states()
        try some.recordSuccess(Self.state("b", "2"))
        try some.compact(plan: ["b"])
        let reread = states()
        #expect(read(reread, "b", at: 0) == Self.state("b", "2"))
        #expect(read(reread, "a", at: 1) == Self.state("a"))
        #expect(read(reread, "c", at: 2) == Self.state("c"))
    }
}
