import Testing

@testable import FlowReport

@Suite struct SlotAssignmentTests {
    @Test func aSlotFreedAtAMillisecondIsTakenAtThatMillisecond() {
        let (slots, count) = SlotAssignment.assign([(0, 10), (0, 5), (5, 8), nil, (10, 12)])
        // Of two starting together, the shorter goes first.
        #expect(slots == [1, 0, 0, nil, 0])
        #expect(count == 2)
    }

    /// Any intervals: no two on one slot overlap, and the slots are as many as the most at once.
    @Test(arguments: 1...20) func slotsNeverOverlapAndAreAsManyAsTheMostAtOnce(seed: Int) {
        var generator = SeededGenerator(seed: UInt64(seed))
        let intervals: [(start: Int64, end: Int64)?] = (0..<300).map { _ -> (start: Int64, end: Int64)? in
            if Int.random(in: 0..<10, using: &generator) == 0 { return nil }
            let start = Int64.random(in: 0..<1000, using: &generator)
            return (start, start + Int64.random(in: 1..<60, using: &generator))
        }
        let (slots, count) = SlotAssignment.assign(intervals)
        var bySlot: [Int: [(start: Int64, end: Int64)]] = [:]
        for (interval, slot) in zip(intervals, slots) {
            #expect((interval == nil) == (slot == nil))
            if let interval, let slot { bySlot[slot, default: []].append(interval) }
        }
        for (_, list) in bySlot {
            let sorted = list.sorted { $0.start < $1.start }
            for (left, right) in zip(sorted, sorted.dropFirst()) { #expect(left.end <= right.start) }
        }
        var mostAtOnce = 0
        for time in Int64(0)..<1100 {
            let open = intervals.compactMap { $0 }.filter { $0.start <= time && time < $0.end }
            mostAtOnce = max(mostAtOnce, open.count)
        }
        #expect(count == mostAtOnce)
    }
}

/// SplitMix64: the same intervals for a seed on every machine.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
