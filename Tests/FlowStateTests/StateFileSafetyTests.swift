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

    static let fingerprint = TaskFingerprint(definition: "d", environment: "e", inputs: "i", needs: "n")

    func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// The compaction once wrote to the predictable `LOG.tmp-PID`, following a symlink planted
    /// there: whatever it led to was overwritten with the log.
    @Test func theCompactionDoesNotWriteThroughASymlinkPlantedInTheStateFolder() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let folder = StateFolder(path: base + "/.flowrun")
        let victim = base + "/victim"
        try folder.create()
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        let log = try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml")
        try FileManager.default.createSymbolicLink(atPath: log.path + ".tmp-\(getpid())", withDestinationPath: victim)
        try log.recordSuccess(of: "a", .init(fingerprint: Self.fingerprint, outputs: "o"), files: [])

        try log.compact()

        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml").tasks["a"]?.fingerprint == Self.fingerprint)
        #expect(mode(log.path) == 0o600)
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
        let log = try FingerprintLog(folder: folder, workflowFile: "/srv/ci/flowrun.yaml")
        try log.recordSuccess(of: "a", .init(fingerprint: Self.fingerprint, outputs: "o"), files: [])
        #expect(mode(log.path) == 0o600, "appended before the compaction")
        try log.compact()

        #expect(mode(folder.path) == 0o700)
        #expect(mode(store.runsPath) == 0o700)
        #expect(mode(store.recordsPath(forWorkflow: "/srv/ci/flowrun.yaml")) == 0o700)
        #expect(mode(path) == 0o600)
        #expect(mode(log.path) == 0o600)
    }

    /// A state folder an older flowrun made readable by all is narrowed on the next write.
    @Test func anExistingStateFolderThatOthersCanReadIsNarrowed() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/.flowrun", withIntermediateDirectories: true)
        chmod(base + "/.flowrun", 0o755)
        try StateFolder(path: base + "/.flowrun").create()
        #expect(mode(base + "/.flowrun") == 0o700)
    }

    /// A full disk: the compaction fails naming the log and the reason, the log is as it was,
    /// and no temporary file is left.
    @Test(.enabled(if: SmallDisk.isAvailable, Comment(rawValue: SmallDisk.skipMessage)))
    func aFullDiskFailsTheCompactionAndLeavesTheLogAsItWas() throws {
        let disk = try SmallDisk(kilobytes: 256)
        defer { disk.remove() }
        let folder = StateFolder(path: disk.path + "/.flowrun")
        let log = try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml")
        try log.recordSuccess(of: "a", .init(fingerprint: Self.fingerprint, outputs: "o"), files: [])
        try log.compact()
        let before = try Data(contentsOf: URL(fileURLWithPath: log.path))
        let many = (0..<4000).map {
            ("/w/input-\($0)-" + String(repeating: "x", count: 40), FileRecord(size: 1, modifiedNanoseconds: 2, inode: 3, digest: "ab"))
        }
        let again = try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml")
        for file in many { again.noteFile(file.0, file.1) }
        disk.fill()

        #expect {
            try again.compact()
        } throws: { error in
            let text = "\(error)"
            return text.contains(log.path) && text.contains("No space left on device")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: log.path)) == before)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == [".gitignore", (log.path as NSString).lastPathComponent])
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
