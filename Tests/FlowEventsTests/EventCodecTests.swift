import FlowModel
import Testing

@testable import FlowEvents

@Suite struct EventCodecTests {
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

    /// A sink keeps the last time's text (`EventTime.Memo`) and rewrites only its milliseconds
    /// within a second: every time must read as if formatted afresh, across seconds, days, 1970
    /// and the clamped ends, forwards and backwards (a wall clock can be set back).
    @Test func aRememberedSecondGivesTheSameTextAsFormattingAfresh() {
        let times: [Int64] = [
            1_795_426_201_123, 1_795_426_201_124, 1_795_426_201_999, 1_795_426_202_000, 1_795_426_202_001, 1_795_426_201_500,
            1_795_478_399_999, 1_795_478_400_000, 0, 999, 1000, -1, -1000, -1001, -999, -1, Int64.min, Int64.min + 1, Int64.max,
            Int64.max - 1, 253_402_300_799_000, 1_795_426_201_123,
        ]
        var memo = EventTime.Memo()
        for time in times {
            var bytes: [UInt8] = Array("x".utf8)
            EventTime.append(milliseconds: time, to: &bytes, memo: &memo)
            #expect(String(decoding: bytes, as: UTF8.self) == "x" + EventTime.string(milliseconds: time), "\(time)")
        }
    }

    @Test(arguments: [Int64(0), 7, -7, 1_234_567_890, Int64.max, Int64.min])
    func integersAreWrittenInDecimal(value: Int64) {
        var bytes: [UInt8] = Array("x".utf8)
        JSONObjectWriter.appendInteger(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x\(value)")
    }

    /// One of every kind, with the values that need care: escapes, controls, C1, non-ASCII,
    /// `null` for what is unknown, and the optional `run` of a skip.
    static let everyKind: [RunEvent.Kind] = {
        var counts = FinalCounts()
        (counts.succeeded, counts.failed, counts.allowed, counts.cancelled) = (3, 2, 1, 1)
        (counts.skipped, counts.upToDate, counts.doneBefore) = (4, 2, 1)
        return [
            .workflowStarted(workflow: "build \"all\"", file: "/tmp/w.yaml", tasks: 12, concurrency: 2),
            .taskReady(task: "compile"),
            .taskStarted(task: "compile", attempt: 2, kind: "shell"),
            .taskOutput(task: "compile", stream: .stderr, line: "tab\there, bell \u{7}, DEL \u{7F}, C1 \u{9B}, é ✓ \\ \"q\""),
            .taskOutput(task: "compile", stream: .stdout, line: ""),
            .taskProgress(task: "fetch", done: 1_500_000, total: 6_000_000, unit: .bytes),
            .taskProgress(task: "unpack", done: 12, total: nil, unit: .entries),
            .taskRetrying(task: "fetch", attempt: 1, delayMilliseconds: 2_000, reason: "HTTP 503"),
            .taskRetrying(task: "test", attempt: 2, delayMilliseconds: 10, reason: "exited with status 3", exitCode: 3),
            .taskSucceeded(task: "compile", attempts: 1, durationMilliseconds: 1_234),
            .taskFailed(task: "test", attempts: 3, durationMilliseconds: 9, reason: "exited with status 1", exitCode: 1),
            .taskFailed(task: "lint", attempts: 1, durationMilliseconds: 0, reason: "timed out after 5s", exitCode: nil, allowed: true),
            .taskCancelled(task: "deploy", reason: "interrupted (SIGINT)"),
            .taskSkipped(task: "docs", reason: "up-to-date"),
            .taskSkipped(task: "pack", reason: "done-before", run: "20261123-093001-abcd"),
            .queueSuspended,
            .queueResumed,
            .workflowCleanup(reason: "interrupted (SIGINT)", tasks: ["tidy", "report"]),
            .workflowFinished(workflow: "build", status: .cancelled, durationMilliseconds: 65_000, counts: counts),
        ]
    }()

    /// What `encode` writes, `decode` reads back: the record is read by the codec that wrote it.
    @Test(arguments: everyKind)
    func everyEventReadsBackAsItWasWritten(kind: RunEvent.Kind) throws {
        let event = RunEvent(seq: 42, timeMilliseconds: 1_795_426_201_123, kind: kind)
        var line: [UInt8] = []
        EventCodec.encode(event, into: &line)
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") }, "one event, one line")
        let decoded = try #require(EventCodec.decode(line[...].dropLast()))
        #expect(decoded.seq == 42)
        #expect(decoded.timeMilliseconds == 1_795_426_201_123)
        #expect(decoded.kind == kind)
    }

    /// The bytes are a contract (`schemas/events.schema.json`): this line is what flowrun wrote
    /// before the codec moved here, byte for byte.
    @Test func aFailedTaskIsWrittenAsBefore() {
        let event = RunEvent(
            seq: 7, timeMilliseconds: 1_795_426_201_123,
            kind: .taskFailed(task: "t", attempts: 2, durationMilliseconds: 30, reason: "a \"b\"\n", exitCode: nil))
        var line: [UInt8] = []
        EventCodec.encode(event, into: &line)
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"seq":7,"time":"2026-11-23T09:30:01.123Z","event":"task.failed","task":"t","attempts":2,"duration_ms":30,"reason":"a \"b\"\n","exit_code":null,"allowed":false}"#
                + "\n")
    }

    @Test(arguments: [
        "", "{}", "not json", #"{"seq":1,"time":"2026-11-23 09:30:01","event":"queue.resumed"}"#,
        #"{"seq":1,"time":"2026-11-23T09:30:01.123Z","event":"task.unknown","task":"t"}"#,
    ])
    func aLineThatIsNoWholeEventOfAKnownKindReadsAsNothing(line: String) {
        #expect(EventCodec.decode(Array(line.utf8)[...]) == nil)
    }
}
