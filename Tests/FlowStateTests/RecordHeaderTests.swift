import Foundation
import Testing

@testable import FlowState

/// The record's header line and the run id, written by hand: the same bytes as the Foundation
/// code that wrote them before (`JSONSerialization`, `Calendar` and `String(format:)`).
@Suite struct RecordHeaderTests {
    /// The header as `JSONSerialization` writes it, which is how every record so far was written.
    func serialized(_ header: RecordHeader) throws -> [UInt8] {
        let object: [String: Any] = [
            "format": RecordHeader.format, "version": header.version, "run": header.run, "workflow": header.workflow,
            "file": header.file, "digest": header.digest.map { $0 as Any } ?? NSNull(), "started_ms": header.startedMilliseconds,
            "output_cap": header.outputCap, "tasks": header.taskCount,
        ]
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) + [UInt8(ascii: "\n")]
    }

    @Test func theHeaderIsTheLineJSONSerializationWrites() throws {
        // Every ASCII byte, the ones JSON escapes among them, and text beyond ASCII.
        let ascii = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        let names = ["build", "", ascii, "tab\there \"quoted\" back\\slash /a/b", "é日本\u{1F600}\u{7F}\u{2028}"]
        for (index, name) in names.enumerated() {
            var header = RecordHeader(
                run: "20261127-163000-\(index)", workflow: name, file: "/work/\(name)/flow.yaml",
                digest: index.isMultiple(of: 2) ? nil : "sha256:\(String(repeating: "ab", count: 32))",
                startedMilliseconds: 1_795_797_000_123 + Int64(index), outputCap: 1 << 20, plan: [])
            header.taskCount = 5000 * index
            let written = try header.encodedHeader()
            #expect(written == (try serialized(header)), "\(String(decoding: written, as: UTF8.self))")
            let decoded = try RecordHeader.decode(Array(written.dropLast()), path: "record.jsonl")
            #expect(decoded.workflow == name && decoded.file == header.file && decoded.digest == header.digest)
        }
    }

    @Test func runIDsAreTheCalendarsDigits() {
        // Day, month and year ends, leap days, the epoch, and a spread of times up to 9999.
        var times: [Int64] = [
            0, 999, 1000, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 978_307_199_999, 4_107_542_400_000,
            1_764_039_912_123, 1_795_797_000_123, 253_402_300_799_999,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 { times.append(Int64.random(in: 0...253_402_300_799_999, using: &generator)) }
        for time in times {
            #expect(RunRecordStore.runID(milliseconds: time) == RunRecordStore.calendarRunID(milliseconds: time), "\(time)")
        }
    }
}
