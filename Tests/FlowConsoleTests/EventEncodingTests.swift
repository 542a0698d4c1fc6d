import Testing

@testable import FlowConsole

@Suite struct EventEncodingTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_795_426_201_123, "2026-11-23T09:30:01.123Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (Int64.min, "0000-01-01T00:00:00.000Z"),
        (Int64.max, "9999-12-31T23:59:59.999Z"),
    ])
    func timesAreRFC3339WithMilliseconds(milliseconds: Int64, expected: String) {
        #expect(EventTime.string(milliseconds: milliseconds) == expected)
    }

    @Test(arguments: [Int64(0), 7, -7, 1_234_567_890, Int64.max, Int64.min])
    func integersAreWrittenInDecimal(value: Int64) {
        var bytes: [UInt8] = Array("x".utf8)
        JSONObjectWriter.appendInteger(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x\(value)")
    }
}
