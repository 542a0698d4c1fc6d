import FlowModel
import FlowTestSupport
import Foundation
import Glibc
import Testing

@testable import FlowState

/// The state folder's files are private, never written through a planted symlink, and a full
/// disk fails their writes cleanly.
@Suite struct StateFileSafetyTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("state-safety-\(UUID().uuidString)").path

    static let state = TaskStatesTests.state("a")

    func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// The compaction once wrote to the predictable `LOG.tmp-PID`, following a symlink planted
    /// there: whatever it led to was overwritten with the log. Neither the state file's
    /// temporary file nor its journal is written through a symlink.
    @Test func theStateIsNotWrittenThroughASymlinkPlantedInTheStateFolder() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let folder = StateFolder(path: base + "/.flowrun")
        let victim = base + "/victim"
        try folder.create()
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        let states = TaskStates(folder: folder, workflowFile: "/w/flow.yaml")
        try FileManager.default.createSymbolicLink(atPath: states.path + ".tmp-\(getpid())", withDestinationPath: victim)
        try states.recordSuccess(Self.state)

        try states.compact(plan: ["a"])

        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        let reread = TaskStates(folder: folder, workflowFile: "/w/flow.yaml")
        #expect(reread.stored(at: 0, id: "a")?.record == Self.state.record)
        #expect(mode(states.path) == 0o600)

        try FileManager.default.createSymbolicLink(atPath: states.journalPath, withDestinationPath: victim)
        #expect(throws: TaskStatesError.self) { try TaskStates(folder: folder, workflowFile: "/w/flow.yaml").recordSuccess(Self.state) }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
    }

    /// Records and fingerprints may hold secrets (a task's output, an env value's digest).
    @Test func theStateFolderAndItsFilesArePrivateToTheirUser() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let folder = StateFolder(path: base + "/.flowrun")
        let store = RunRecordStore(folder: folder)
        let (run, path) = try store.newRecord(forWorkflow: "/srv/ci/flowrun.yaml", startedMilliseconds: 1_764_039_912_000)
        let header = RecordHeader(
            run: run, workflow: "ci", file: "/srv/ci/flowrun.yaml", digest: "sha256:00", startedMilliseconds: 1_764_039_912_000,
            outputCap: 1 << 20, plan: [])
        let recorder = try RunRecorder(path: path, header: header) { failure in Issue.record("write failed: \(failure)") }
        recorder.finish()
        let states = TaskStates(folder: folder, workflowFile: "/srv/ci/flowrun.yaml")
        try states.recordSuccess(Self.state)
        #expect(mode(states.journalPath) == 0o600, "appended before the compaction")
        try states.compact(plan: ["a"])

        #expect(mode(folder.path) == 0o700)
        #expect(mode(store.runsPath) == 0o700)
        #expect(mode(store.recordsPath(forWorkflow: "/srv/ci/flowrun.yaml")) == 0o700)
        #expect(mode(path) == 0o600)
        #expect(mode(states.path) == 0o600)
    }

    /// A state folder an older flowrun made readable by all is narrowed on the next write.
    @Test func anExistingStateFolderThatOthersCanReadIsNarrowed() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/.flowrun", withIntermediateDirectories: true)
        chmod(base + "/.flowrun", 0o755)
        try StateFolder(path: base + "/.flowrun").create()
        #expect(mode(base + "/.flowrun") == 0o700)
    }

    /// A full disk: the end of the run fails naming the state file and the reason, the file is
    /// as it was, and no temporary file is left.
    @Test(.enabled(if: SmallDisk.isAvailable, Comment(rawValue: SmallDisk.skipMessage)))
    func aFullDiskFailsTheCompactionAndLeavesTheStateAsItWas() throws {
        let disk = try SmallDisk(kilobytes: 256)
        defer { disk.remove() }
        let folder = StateFolder(path: disk.path + "/.flowrun")
        let states = TaskStates(folder: folder, workflowFile: "/w/flow.yaml")
        try states.recordSuccess(Self.state)
        try states.compact(plan: ["a"])
        let before = try Data(contentsOf: URL(fileURLWithPath: states.path))
        let again = TaskStates(folder: folder, workflowFile: "/w/flow.yaml")
        for index in 0..<4000 {
            var state = Self.state
            state.id = "task-\(index)-" + String(repeating: "x", count: 40)
            again.refresh(state)
        }
        disk.fill()

        #expect {
            try again.compact(plan: [])
        } throws: { error in
            let text = "\(error)"
            return text.contains(states.path) && text.contains("No space left on device")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: states.path)) == before)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == [".gitignore", (states.path as NSString).lastPathComponent])
    }

    /// A full disk midway through a journal entry: the part written is cut off, so that what
    /// the run journals once there is room again is read back after a kill.
    @Test(.enabled(if: SmallDisk.isAvailable, Comment(rawValue: SmallDisk.skipMessage)))
    func anEntryAFullDiskCutShortDoesNotHideTheEntriesAfterIt() throws {
        let disk = try SmallDisk(kilobytes: 256)
        defer { disk.remove() }
        let folder = StateFolder(path: disk.path + "/.flowrun")
        func state(_ id: String, files: Int) -> TaskState {
            var state = Self.state
            state.id = id
            state.inputs = (0..<files).map { StampedFile(pattern: 0, path: "/w/in/\(id)-\($0)", record: Self.state.inputs[0].record) }
            return state
        }
        let run = TaskStates(folder: folder, workflowFile: "/w/flow.yaml")
        try run.recordSuccess(state("a", files: 1))
        disk.fill()
        // Larger than a page: some of it fits in the journal's last page, the rest does not.
        #expect(throws: TaskStatesError.self) { try run.recordSuccess(state("b", files: 200)) }
        try FileManager.default.removeItem(atPath: disk.path + "/filler")
        try run.recordSuccess(state("c", files: 1))
        // No compact(): the run is killed.

        let reread = TaskStates(folder: folder, workflowFile: "/w/flow.yaml")
        #expect(reread.stored(at: 0, id: "a") != nil)
        #expect(reread.stored(at: 1, id: "b") == nil)
        #expect(reread.stored(at: 2, id: "c") != nil, "c was journaled after the disk had room again")
    }

    /// A full disk while a run is recorded: told once, and the record stays readable.
    @Test(.enabled(if: SmallDisk.isAvailable, Comment(rawValue: SmallDisk.skipMessage)))
    func aFullDiskStopsTheRecordWithOneWarning() throws {
        let disk = try SmallDisk(kilobytes: 256)
        defer { disk.remove() }
        let store = RunRecordStore(folder: StateFolder(path: disk.path + "/.flowrun"))
        let (run, path) = try store.newRecord(forWorkflow: "/srv/ci/flowrun.yaml", startedMilliseconds: 1_764_039_912_000)
        let header = RecordHeader(
            run: run, workflow: "ci", file: "/srv/ci/flowrun.yaml", digest: "sha256:00", startedMilliseconds: 1_764_039_912_000,
            outputCap: 1 << 30, plan: [])
        let failures = Failures()
        let recorder = try RunRecorder(path: path, header: header) { failure in failures.append(failure) }
        disk.fill()
        let line = String(repeating: "y", count: 1000)
        for seq in 1...1000 {
            recorder.receive(RunEvent(seq: seq, timeMilliseconds: 0, kind: .taskOutput(task: "a", stream: .stdout, line: line)))
        }
        recorder.finish()

        let told = failures.all
        #expect(told.count == 1)
        #expect(told.first?.code == ENOSPC && told.first?.output.contains(path) == true)
        #expect(throws: Never.self) { try RunRecord(path: path) }
    }
}

/// The failures a recorder told, from whichever thread.
private final class Failures: @unchecked Sendable {  // `lock` guards `list`.
    private let lock = NSLock()
    private var list: [WriteFailure] = []
    func append(_ failure: WriteFailure) { lock.withLock { list.append(failure) } }
    var all: [WriteFailure] { lock.withLock { list } }
}
