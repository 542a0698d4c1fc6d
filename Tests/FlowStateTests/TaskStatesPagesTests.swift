import FlowTestSupport
import Foundation
import Testing

@testable import FlowState

/// A task state file of several megabytes (`TaskStates.releasePiece` each): checked whole, piece
/// by piece, and read in plan order without the whole file staying in the process's memory.
@Suite struct TaskStatesPagesTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("task-states-pages-\(UUID().uuidString)").path
    var folder: StateFolder { StateFolder(path: base + "/.flowrun") }
    static let taskCount = 2_000

    /// A task whose input path is long, so that a few thousand tasks fill several pieces.
    static func state(_ index: Int) -> TaskState {
        let state = TaskStatesTests.state("t\(index)")
        var input = state.inputs[0]
        input.path += "/" + String(repeating: "long-folder-name/", count: 120) + "\(index)"
        return TaskState(id: state.id, record: state.record, inputs: [input], outputs: state.outputs)
    }

    func writeStates() throws -> TaskStates {
        let written = TaskStates(folder: folder, workflowFile: "/w/flow.yaml")
        for index in 0..<Self.taskCount { try written.recordSuccess(Self.state(index)) }
        try written.compact(plan: (0..<Self.taskCount).map { "t\($0)" })
        return written
    }

    /// The resident size of the mapping of `path` in this process (`/proc/self/smaps`), in bytes.
    static func residentBytes(ofMappingOf path: String) throws -> Int? {
        try MemoryMapping.ofThisProcess().first { $0.path == path }?.residentBytes
    }

    @Test func aLargeFileIsCheckedWholeWithoutStayingInMemory() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = try writeStates().path
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size >= 4 * TaskStates.releasePiece, "the file spans several pieces")

        let states = TaskStates(folder: folder, workflowFile: "/w/flow.yaml")
        #expect(states.ignoredProblem == nil)
        // Every byte hashed, then let go of.
        #expect(try #require(try Self.residentBytes(ofMappingOf: path)) <= TaskStates.releasePiece)
        for index in 0..<Self.taskCount {
            let stored = try #require(states.stored(at: index, id: "t\(index)"))
            #expect(stored.files(outputs: false) == Self.state(index).inputs)
            #expect(stored.record == Self.state(index).record)
        }
        #expect(try #require(try Self.residentBytes(ofMappingOf: path)) > TaskStates.releasePiece, "read back")
        states.releasePages()
        #expect(try #require(try Self.residentBytes(ofMappingOf: path)) <= 4096)
        // Read again after its pages were let go of: the same bytes, from the file.
        for index in [0, Self.taskCount / 2, Self.taskCount - 1] {
            let stored = try #require(states.stored(at: index, id: "t\(index)"))
            #expect(stored.files(outputs: false) == Self.state(index).inputs)
            #expect(stored.record == Self.state(index).record)
        }
    }

    @Test func aByteDamagedInAnyPieceOfALargeFileIsSeen() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let path = try writeStates().path
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        for offset in [100, TaskStates.releasePiece - 1, TaskStates.releasePiece, 3 * TaskStates.releasePiece + 17, whole.count - 40] {
            var damaged = whole
            damaged[offset] ^= 0x01
            try damaged.write(to: URL(fileURLWithPath: path))
            let found = TaskStates(folder: folder, workflowFile: "/w/flow.yaml")
            #expect(found.ignoredProblem != nil, "a byte flipped at \(offset)")
            #expect(found.stored(at: 0, id: "t0") == nil)
            #expect(found.isEmpty)
        }
        try whole.write(to: URL(fileURLWithPath: path))
        #expect(TaskStates(folder: folder, workflowFile: "/w/flow.yaml").stored(at: Self.taskCount - 1, id: "t\(Self.taskCount - 1)") != nil)
    }
}
