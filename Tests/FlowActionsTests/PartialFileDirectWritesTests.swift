import Foundation
import Glibc
import Testing

@testable import FlowActions

/// `PartialFile` writing whole blocks with `O_DIRECT` (`DirectWrites`) and the partial block
/// through the page cache: what lands on disk is every byte appended, in order.
@Suite struct PartialFileDirectWritesTests {
    /// Appends `bytes` in `chunk`-sized pieces, hashing them, as a transfer does.
    static func append(_ bytes: [UInt8], chunk: Int, to file: PartialFile) throws {
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            try bytes[start..<end].withUnsafeBytes { piece in try file.append(piece) }
            start = end
        }
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// Whether the folder's file system takes `O_DIRECT` (ext4, xfs: yes; some tmpfs: no).
    static func takesDirect(_ folder: String) -> Bool {
        let path = folder + "/.probe"
        let descriptor = open(path, O_RDWR | O_CREAT | DirectWrites.oDirect, 0o600)
        defer { unlink(path) }
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    @Test func bytesCrossingBlocksLandWholeAndInOrderAtTo() throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = DownloadRunnerTests.bytes(2 * DirectWrites.blockSize + DirectWrites.blockSize / 2 + 4_097)
        let file = try PartialFile(destination: folder + "/out.bin", withSHA256: true)
        #expect(file.writesDirect == Self.takesDirect(folder))
        try Self.append(bytes, chunk: 65_537, to: file)
        #expect(file.size == Int64(bytes.count))
        let digest = try file.finish(expectedSHA256: DownloadRunnerTests.sha256(bytes))
        #expect(digest.sha256 == DownloadRunnerTests.sha256(bytes))
        #expect(Self.contents(folder + "/out.bin") == bytes)
        #expect(DownloadRunnerTests.folderContents(folder) == ["out.bin"])
    }

    @Test func aSettledFileHoldsEveryByteAppendedAndTakesMoreAfter() throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A block and a part: the part waits in memory until settled, as a failed attempt's
        // tail must be on disk before the next one asks for the rest from `size`.
        let first = DownloadRunnerTests.bytes(DirectWrites.blockSize + 150_000)
        let file = try PartialFile(destination: folder + "/out.bin", withSHA256: true)
        try Self.append(first, chunk: 40_000, to: file)
        try file.settle()
        #expect(!file.writesDirect)
        #expect(Self.contents(file.path) == first)
        let rest = DownloadRunnerTests.bytes(70_001, seed: 9)
        try Self.append(rest, chunk: 65_536, to: file)
        _ = try file.finish(expectedSHA256: DownloadRunnerTests.sha256(first + rest))
        #expect(Self.contents(folder + "/out.bin") == first + rest)
    }

    @Test func aRestartAfterWholeBlocksKeepsOnlyTheNewBytes() throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try PartialFile(destination: folder + "/out.bin", withSHA256: true)
        try Self.append(DownloadRunnerTests.bytes(DirectWrites.blockSize * 3 / 2), chunk: 65_536, to: file)
        try file.restart()
        #expect(file.writesDirect == Self.takesDirect(folder))
        let bytes = DownloadRunnerTests.bytes(10, seed: 3)
        try Self.append(bytes, chunk: 10, to: file)
        _ = try file.finish(expectedSHA256: DownloadRunnerTests.sha256(bytes))
        #expect(Self.contents(folder + "/out.bin") == bytes)
    }

    @Test func aRemovedFileLeavesNothingAndItsBlockIsReused() throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for round in 0..<3 {
            let file = try PartialFile(destination: folder + "/out.bin", withSHA256: true)
            try Self.append(DownloadRunnerTests.bytes(300_000, seed: UInt8(round)), chunk: 65_536, to: file)
            file.remove()
        }
        #expect(DownloadRunnerTests.folderContents(folder) == [])
        let bytes = DownloadRunnerTests.bytes(DirectWrites.blockSize, seed: 5)
        let file = try PartialFile(destination: folder + "/out.bin", withSHA256: true)
        try Self.append(bytes, chunk: 100_000, to: file)
        _ = try file.finish(expectedSHA256: DownloadRunnerTests.sha256(bytes))
        #expect(Self.contents(folder + "/out.bin") == bytes, "a reused block holds only this file's bytes")
    }
}

/// Whole blocks handed over from the network thread (`StagedBlock`) are written from where
/// they lie, but only while nothing waits in the staging block before them.
@Suite struct PartialFileStagedBlockTests {
    typealias Writes = PartialFileDirectWritesTests

    /// A block filled from `bytes`.
    static func staged(_ bytes: [UInt8]) -> StagedBlock {
        let block = StagedBlock()
        let taken = bytes.withUnsafeBytes { block.fill(from: $0) }
        #expect(taken == bytes.count)
        return block
    }

    @Test func fullBlocksAndPiecesBetweenThemLandInOrder() throws {
        let folder = try ShellRunnerTests.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let size = DirectWrites.blockSize
        let first = DownloadRunnerTests.bytes(size, seed: 1), piece = DownloadRunnerTests.bytes(5_000, seed: 2)
        let second = DownloadRunnerTests.bytes(size, seed: 3), tail = DownloadRunnerTests.bytes(777, seed: 4)
        let file = try PartialFile(destination: folder + "/out.bin", withSHA256: true)
        for bytes in [first, piece, second, tail] {
            let block = Self.staged(bytes)
            #expect(block.isFull == (bytes.count == size))
            try file.append(block.bytes)
        }
        let all = first + piece + second + tail
        #expect(file.size == Int64(all.count))
        _ = try file.finish(expectedSHA256: DownloadRunnerTests.sha256(all))
        #expect(Writes.contents(folder + "/out.bin") == all, "the second block waited behind the piece")
    }

    @Test func aBlockTakesNoMoreThanItsSize() {
        let block = StagedBlock()
        let bytes = DownloadRunnerTests.bytes(DirectWrites.blockSize + 10)
        #expect(bytes.withUnsafeBytes { block.fill(from: $0) } == DirectWrites.blockSize)
        #expect(block.isFull)
        #expect(bytes.withUnsafeBytes { block.fill(from: $0) } == 0)
        #expect(Array(block.bytes) == Array(bytes[0..<DirectWrites.blockSize]))
    }
}
