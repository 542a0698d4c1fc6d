import FlowModel
import Testing

@Suite struct ChunkedWorkTests {
    @Test(arguments: [0, 1, 4095, 8191, 8192, 20_000, 100_003])
    func chunksCoverEveryIndexOnceInOrder(count: Int) {
        let ranges = ChunkedWork.map(count) { $0 }
        #expect(ranges.first?.lowerBound == 0)
        #expect(ranges.last?.upperBound == count)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        // Two chunks' worth or more is split (on a machine of one core too); less is not.
        #expect((ranges.count > 1) == (count >= 2 * ChunkedWork.minimumChunk))
    }

    @Test(arguments: [0, 1, 8192, 20_000])
    func gatheredItemsKeepTheirOrderWhenChunksAddFewer(count: Int) {
        // Every third index adds nothing; items are strings, so a wrong move would show.
        let (items, reports) = ChunkedWork.gather(count) { range, add in
            for index in range where index % 3 != 0 { add("item \(index)") }
            return range.count
        }
        #expect(items == (0..<count).filter { $0 % 3 != 0 }.map { "item \($0)" })
        #expect(reports.reduce(0, +) == count)
    }
}
