import FlowEvents
import FlowModel
import FlowTestSupport
import Foundation
import Testing

@testable import FlowState

/// The record's lines written the quick way are the bytes of the plain way: the plan line made
/// from the plan in place, and each event's line with its time text kept within a second and its
/// fingerprint put before the closing brace.
@Suite struct RecordLineBytesTests {
    @Test func thePlanLineMadeFromThePlanIsTheLineOfItsEntries() throws {
        let plan = try PlannedTasks.plan(
            """
            version: 1
            queues: {net: {concurrency: 1}}
            tasks:
              fetch: {shell: "true", queue: net, priority: high}
              unpack: {needs: [fetch], shell: "true", priority: very-low}
              build: {needs: [fetch, unpack], shell: [make]}
              all: {needs: [build, unpack]}
            """)
        let line = RecordHeader.encodedPlan(of: plan)
        #expect(line == RecordHeader.encodedPlan(RecordHeader.PlanEntry.entries(of: plan)))
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.hasPrefix(#"{"plan":[{"task":"fetch","needs":[],"kind":"shell","fingerprint":null,"queue":"net","priority":"high"}"#))
        #expect(text.contains(#"{"task":"build","needs":["fetch","unpack"],"kind":"shell","fingerprint":null,"priority":"normal"}"#))
        #expect(text.hasSuffix("]}\n"))
        // And as the record reads it back.
        let decoded = RecordHeader.decodePlan(line.dropLast()[...])
        #expect(decoded == RecordHeader.PlanEntry.entries(of: plan))
    }

    @Test func aTextThatNeedsEscapesIsStillEscapedAndOneThatDoesNotIsCopiedWhole() {
        var bytes: [UInt8] = []
        RecordHeader.appendString("t-17_x.y", to: &bytes)
        RecordHeader.appendString("a\"b\\c\u{1}d", to: &bytes)
        RecordHeader.appendString("", to: &bytes)
        RecordHeader.appendString("café", to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #""t-17_x.y""a\"b\\c\u0001d""""café""#)
    }

    @Test func eachEventLineIsTheCodecsLineWithItsFingerprintWhateverTheSecond() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("record-lines-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let header = RecordHeader(
            run: "20261127-060000-000", workflow: "ci", file: "/srv/ci/flowrun.yaml", digest: nil, startedMilliseconds: 1_795_759_200_000,
            outputCap: 1 << 20, plan: [.init(task: "build", needs: [], kind: "shell"), .init(task: "test", needs: ["build"], kind: "shell")])
        let path = base + "/\(header.run).jsonl"
        let recorder = try RunRecorder(path: path, header: header, flushTimer: ManualFlushTimer()) { Issue.record("write failed: \($0)") }
        let fingerprints = ["build": String(repeating: "ab", count: 32), "test": String(repeating: "0f", count: 32)]
        recorder.recordFingerprints { fingerprints[$0] }
        // Times in one second, then the next, then back in the first (a clock step), then years on.
        let start: Int64 = 1_795_759_200_998
        var counts = FinalCounts()
        counts.succeeded = 2
        let kinds: [(Int64, RunEvent.Kind)] = [
            (0, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 2, concurrency: 2)),
            (0, .taskStarted(task: "build", attempt: 1, kind: "shell")),
            (1, .taskSucceeded(task: "build", attempts: 1, durationMilliseconds: 1)),
            (2, .taskStarted(task: "test", attempt: 1, kind: "shell")),
            (-1, .taskOutput(task: "test", stream: .stdout, line: "ok")),
            (86_400_000 * 400 + 5, .taskSucceeded(task: "test", attempts: 1, durationMilliseconds: 2)),
            (86_400_000 * 400 + 6, .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 8, counts: counts)),
        ]
        let events = kinds.enumerated().map { RunEvent(seq: $0.offset + 1, timeMilliseconds: start + $0.element.0, kind: $0.element.1) }
        recorder.receive(Array(events.prefix(3)))
        recorder.receive(Array(events.dropFirst(3)))
        recorder.finish()

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        // The header, the plan, then one line per event.
        #expect(lines.count == 2 + events.count)
        for (event, line) in zip(events, lines.dropFirst(2)) {
            var expected: [UInt8] = []
            EventCodec.encode(event, into: &expected)
            var text = String(decoding: expected.dropLast(), as: UTF8.self)
            if case .taskSucceeded(let task, _, _) = event.kind, let fingerprint = fingerprints[task] {
                text = String(text.dropLast()) + #","fingerprint":"\#(fingerprint)"}"#
            }
            #expect(line == text)
            #expect(line.contains(#""time":"\#(EventTime.string(milliseconds: event.timeMilliseconds))""#))
        }
    }
}
