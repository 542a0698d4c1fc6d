import Foundation
import Testing

@testable import FlowState

@Suite struct FingerprintLogTests {
    static func fingerprint(_ seed: String) -> TaskFingerprint {
        TaskFingerprint(definition: seed + "d", environment: seed + "e", inputs: seed + "i", needs: seed + "n")
    }

    func folder() throws -> (StateFolder, String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("fingerprints-\(UUID().uuidString)").path
        let folder = StateFolder(path: base)
        try folder.create()
        return (folder, base)
    }

    @Test func successesAppendedAsTheyHappenSurviveAKillBeforeTheCompaction() throws {
        let (folder, base) = try folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let file = FileRecord(size: 3, modifiedNanoseconds: 7, inode: 9, digest: "ab")
        do {
            let log = try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml")
            try log.recordSuccess(of: "a", .init(fingerprint: Self.fingerprint("a"), outputs: "o"), files: [("/w/in", file)])
            try log.recordSuccess(of: "b", .init(fingerprint: Self.fingerprint("b"), outputs: "o"), files: [])
            try log.forget("b")
            // No compact(): as if the run were killed here.
        }
        // A torn last line, as a kill in the middle of a write leaves.
        let handle = try #require(FileHandle(forWritingAtPath: try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml").path))
        handle.seekToEndOfFile()
        handle.write(Data("T\tdeadbeef".utf8))
        try handle.close()
        let reread = try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml")
        #expect(reread.tasks["a"]?.fingerprint == Self.fingerprint("a"))
        #expect(reread.tasks["b"] == nil)
        #expect(reread.files["/w/in"] == file)
    }

    @Test func anEmptyLogLeftByAKillIsStartedAfresh() throws {
        let (folder, base) = try folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml").path
        try Data().write(to: URL(fileURLWithPath: path))
        let log = try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml")
        #expect(log.ignoredProblem == nil)
        try log.recordSuccess(of: "a", .init(fingerprint: Self.fingerprint("a"), outputs: "o"), files: [])
        #expect(try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml").tasks["a"] != nil)
    }

    @Test func compactionKeepsOneLinePerTaskAndFile() throws {
        let (folder, base) = try folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let log = try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml")
        for round in 0..<5 {
            try log.recordSuccess(of: "a", .init(fingerprint: Self.fingerprint("a\(round)"), outputs: "o"), files: [])
        }
        try log.compact()
        let lines = try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml").tasks["a"]?.fingerprint == Self.fingerprint("a4"))
    }

    @Test func twoWorkflowsSharingAFolderKeepTheirOwnRecords() throws {
        let (folder, base) = try folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let first = try FingerprintLog(folder: folder, workflowFile: "/w/one.yaml")
        try first.recordSuccess(of: "a", .init(fingerprint: Self.fingerprint("a"), outputs: "o"), files: [])
        try first.compact()
        #expect(try FingerprintLog(folder: folder, workflowFile: "/w/two.yaml").tasks.isEmpty)
        #expect(try FingerprintLog(folder: folder, workflowFile: "/w/one.yaml").tasks.count == 1)
    }

    @Test func aLogFromANewerFlowrunIsRefusedAndGarbageIsIgnored() throws {
        let (folder, base) = try folder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml").path
        try Data("flowrun-fingerprints\t99\t/w/flow.yaml\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: FingerprintLogError.self) { try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml") }
        try Data([0xff, 0x00, 0x0a, 0x41]).write(to: URL(fileURLWithPath: path))
        let log = try FingerprintLog(folder: folder, workflowFile: "/w/flow.yaml")
        #expect(log.tasks.isEmpty)
        #expect(log.ignoredProblem != nil)
    }
}
