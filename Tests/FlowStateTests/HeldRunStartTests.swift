import FlowModel
import Foundation
import Testing

@testable import FlowState

/// What a record holds back until a task runs (`HeldRunStart`) is given back exactly as it was
/// received, and the record of a run is the same whether its start was held compactly or not:
/// events that do not fit the compact form are simply written.
@Suite struct HeldRunStartTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("held-start-\(UUID().uuidString)").path
    static let start: Int64 = 1_764_176_400_000

    static func event(_ seq: Int, _ kind: RunEvent.Kind, at milliseconds: Int64? = nil) -> RunEvent {
        RunEvent(seq: seq, timeMilliseconds: milliseconds ?? start + Int64(seq / 3), kind: kind)
    }

    /// A no-op's start over `tasks` tasks: started, then a ready and an up-to-date skip each.
    static func noOpStart(tasks: Int) -> [RunEvent] {
        var events = [event(1, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: tasks, concurrency: 2))]
        for index in 0..<tasks {
            events.append(event(events.count + 1, .taskReady(task: "t\(index)")))
            events.append(event(events.count + 1, .taskSkipped(task: "t\(index)", reason: SkipReason.upToDate)))
        }
        return events
    }

    static func describe(_ events: [RunEvent]) -> [String] {
        events.map { "\($0.seq) \($0.timeMilliseconds) \($0.kind)" }
    }

    @Test func heldEventsComeBackAsTheyWereReceived() {
        var held = HeldRunStart()
        let events = Self.noOpStart(tasks: 500)
        for event in events {
            let kept = held.hold(event)
            #expect(kept)
        }
        #expect(held.count == events.count)
        var back: [RunEvent] = []
        held.forEach { back.append($0) }
        #expect(Self.describe(back) == Self.describe(events))
    }

    /// A ready and an up-to-date skip of one task in one millisecond are held as one entry; any
    /// other order (another task's skip between, a skip with no ready before it, a skip a
    /// millisecond later) is held as it came, and every event comes back in order.
    @Test func readyAndSkipHeldTogetherComeBackAsTheyWereReceived() {
        let at = Self.start
        let events = [
            Self.event(1, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 4, concurrency: 2), at: at),
            Self.event(2, .taskReady(task: "t0"), at: at),
            Self.event(3, .taskReady(task: "t1"), at: at),
            Self.event(4, .taskSkipped(task: "t0", reason: SkipReason.upToDate), at: at),
            Self.event(5, .taskSkipped(task: "t1", reason: SkipReason.upToDate), at: at),
            Self.event(6, .taskSkipped(task: "t2", reason: SkipReason.upToDate), at: at),
            Self.event(7, .taskReady(task: "t3"), at: at + 1),
            Self.event(8, .taskSkipped(task: "t3", reason: SkipReason.upToDate), at: at + 2),
            Self.event(9, .taskReady(task: "t4"), at: at + 2),
            Self.event(10, .taskSkipped(task: "t4", reason: SkipReason.upToDate), at: at + 2),
        ]
        var held = HeldRunStart(tasks: 5)
        for event in events {
            let kept = held.hold(event)
            #expect(kept)
        }
        #expect(held.count == events.count)
        // The next event must follow the last one held, merged or not.
        let refused = !held.hold(Self.event(12, .taskReady(task: "t5"), at: at + 2))
        #expect(refused)
        var back: [RunEvent] = []
        held.forEach { back.append($0) }
        #expect(Self.describe(back) == Self.describe(events))
    }

    @Test(arguments: [
        ("a task that runs", HeldRunStartTests.event(4, .taskStarted(task: "t1", attempt: 1, kind: "shell"))),
        ("a gap in seq", HeldRunStartTests.event(5, .taskReady(task: "t1"))),
        ("a skip of another reason", HeldRunStartTests.event(4, .taskSkipped(task: "t1", reason: "needs 't0', which did not succeed"))),
        ("a done-before skip", HeldRunStartTests.event(4, .taskSkipped(task: "t1", reason: SkipReason.doneBefore, run: "20261126-170000-000"))),
        ("a time 25 days on", HeldRunStartTests.event(4, .taskReady(task: "t1"), at: HeldRunStartTests.start + 25 * 86_400_000)),
        ("a time before the first", HeldRunStartTests.event(4, .taskReady(task: "t1"), at: HeldRunStartTests.start - 25 * 86_400_000)),
        ("a second start", HeldRunStartTests.event(4, .workflowStarted(workflow: "ci", file: "flowrun.yaml", tasks: 2, concurrency: 2))),
    ])
    func anEventThatDoesNotFitIsRefused(_ why: String, _ event: RunEvent) {
        var held = HeldRunStart()
        for event in Self.noOpStart(tasks: 1) {
            let kept = held.hold(event)
            #expect(kept)
        }
        let refused = !held.hold(event)
        #expect(refused, "\(why)")
        #expect(held.count == 3)
    }

    /// Writes `events` through a recorder; returns the record's events and how often the plan's line was made.
    func record(_ events: [RunEvent]) throws -> (events: [RunEvent], planLines: Int, lines: Int) {
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let header = RecordHeader(
            run: "20261126-170000-000", workflow: "ci", file: "/srv/ci/flowrun.yaml",
            digest: nil, startedMilliseconds: Self.start, outputCap: 1 << 20, plan: [.init(task: "t0", needs: [], kind: "shell")])
        let path = base + "/\(header.run).jsonl"
        let made = Counter()
        let recorder = try RunRecorder(
            path: path, header: header,
            planLine: {
                made.add()
                return header.encodedPlan()
            }
        ) { failure in Issue.record("write failed: \(failure)") }
        recorder.receive(events)
        recorder.finish()
        var back: [RunEvent] = []
        let record = try RunRecord(path: path)
        #expect(try record.forEachEvent { back.append($0) } == 0)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count
        try FileManager.default.removeItem(atPath: path)
        return (back, made.value, lines)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func add() { lock.withLock { count += 1 } }
    }

    @Test func aNoOpMakesNoPlanLineAndARunThatRanKeepsEveryHeldEventInOrder() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        var counts = FinalCounts()
        counts.skipped = 2_000
        counts.upToDate = 2_000
        let start = Self.noOpStart(tasks: 2_000)
        let finished = Self.event(start.count + 1, .workflowFinished(workflow: "ci", status: .succeeded, durationMilliseconds: 9, counts: counts))
        let noOp = try record(start + [finished])
        #expect(noOp.planLines == 0)
        #expect(noOp.lines == 4, "header, plan, start, end")
        #expect(Self.describe(noOp.events) == Self.describe([start[0], finished]))

        let ran =
            start + [
                Self.event(start.count + 1, .taskStarted(task: "last", attempt: 1, kind: "shell")),
                Self.event(start.count + 2, .taskSucceeded(task: "last", attempts: 1, durationMilliseconds: 3)),
            ]
        let written = try record(ran)
        #expect(written.planLines == 1)
        #expect(Self.describe(written.events) == Self.describe(ran))
    }

    /// Events the compact form cannot hold (a gap in `seq`, a task ready before the start, a
    /// time far from the first) are written as they came, with the events held before them.
    @Test func eventsThatDoNotFitAreWrittenWithWhatWasHeldBeforeThem() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let cases: [[RunEvent]] = [
            Self.noOpStart(tasks: 3) + [Self.event(9, .taskReady(task: "late"))],
            [Self.event(1, .taskReady(task: "t0")), Self.event(2, .workflowStarted(workflow: "ci", file: "f", tasks: 1, concurrency: 1))],
            Self.noOpStart(tasks: 2) + [Self.event(6, .taskReady(task: "t2"), at: Self.start + 30 * 86_400_000)],
        ]
        for events in cases {
            let written = try record(events)
            #expect(written.planLines == 1)
            #expect(Self.describe(written.events) == Self.describe(events))
        }
    }
}
