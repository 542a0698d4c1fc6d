import Testing

@testable import FlowActions

/// The resampler filters down as the source rows come, holding only the rows its vertical filter
/// spans: it held the whole source filtered across (a 25-megapixel photo into a 9999x9999 cell
/// took 1.2 GB beside the 400 MB canvas).
@Suite struct ResamplerStreamingTests {
    /// Source rows `rows` of `width` grey pixels of value `value(y)`, opaque.
    static func feed(_ resampler: Resampler, width: Int, rows: Range<Int>, value: (Int) -> UInt8) {
        for y in rows {
            let row: [UInt8] = (0..<width).flatMap { _ in [value(y), value(y), value(y), 255] }
            row.withUnsafeBufferPointer { resampler.accept(y, $0.baseAddress!) }
        }
    }

    @Test func rowsAreEmittedOnceTheFilterHasTheirSourceRows() throws {
        let emitted = LockedBox<[Int]>([])
        let resampler = Resampler(width: 8, height: 999) { y, _ in emitted.update { $0.append(y) } }
        resampler.begin(width: 8, height: 1000)

        Self.feed(resampler, width: 8, rows: 0..<100) { UInt8($0 % 256) }

        // Lanczos-3 reaches 3 rows on: row y needs source rows up to about y + 3.
        #expect(emitted.value.count >= 90, "\(emitted.value.count) rows out after 100 of 1000 in")
        #expect(emitted.value == Array(0..<emitted.value.count))
        Self.feed(resampler, width: 8, rows: 100..<1000) { UInt8($0 % 256) }
        try resampler.finish(stop: StopFlag())
        #expect(emitted.value == Array(0..<999))
    }

    /// Shrinking 8x, each row reads about 48 source rows: the rows are still emitted in order
    /// and weighted as before (a flat grey stays that grey).
    @Test func aShrinkEmitsEveryRowInOrderAndKeepsAFlatGrey() throws {
        let rows = LockedBox<[(Int, [Float])]>([])
        let resampler = Resampler(width: 4, height: 25) { y, row in rows.update { $0.append((y, Array(row))) } }
        resampler.begin(width: 32, height: 200)

        Self.feed(resampler, width: 32, rows: 0..<200) { _ in 102 }
        try resampler.finish(stop: StopFlag())

        #expect(rows.value.map(\.0) == Array(0..<25))
        for (y, row) in rows.value {
            for value in row { #expect(abs(value - Float(102) / 255) < 1e-4 || abs(value - 1) < 1e-4, "row \(y): \(value)") }
        }
    }
}
