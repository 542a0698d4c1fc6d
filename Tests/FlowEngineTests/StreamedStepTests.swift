import FlowModel
import FlowTestSupport
import Foundation
import Testing

@testable import FlowEngine

/// An engine step that makes thousands of events (a no-op rerun: every task ready and up to
/// date in one cascade) hands them to the sinks as it goes, `EventBus.streamBatch` at a time,
/// rather than holding them all until it ends: memory stays that of one batch.
@Suite struct StreamedStepTests {
    /// Keeps every event, and the size of each batch it was handed.
    final class BatchSink: EventSink, @unchecked Sendable {
        private let lock = NSLock()
        private var eventsStored: [RunEvent] = []
        private var batchesStored: [Int] = []

        var events: [RunEvent] { lock.withLock { eventsStored } }
        var batches: [Int] { lock.withLock { batchesStored } }
        var count: Int { lock.withLock { eventsStored.count } }

        func receive(_ event: RunEvent) { receive([event]) }

        func receive(_ batch: [RunEvent]) {
            lock.withLock {
                eventsStored += batch
                batchesStored.append(batch.count)
            }
        }
    }

    /// Runs what the bus hands off only when the test says, as a busy queue would.
    final class HeldHandOff: @unchecked Sendable {
        private let lock = NSLock()
        private var blocks: [@Sendable () -> Void] = []

        var count: Int { lock.withLock { blocks.count } }

        func add(_ block: @escaping @Sendable () -> Void) { lock.withLock { blocks.append(block) } }

        func runAll() {
            while let block = lock.withLock({ blocks.isEmpty ? nil : blocks.removeFirst() }) { block() }
        }
    }

    @Test func postedEventsGoToTheHandOffQueueOnceABatchWaitsAndNeverOnThePostersThread() {
        let sink = BatchSink()
        let handOff = HeldHandOff()
        let bus = EventBus(sinks: [sink], handOff: { handOff.add($0) })
        for index in 0..<(EventBus.streamBatch - 1) { bus.post(.taskReady(task: "t\(index)")) }
        #expect(handOff.count == 0, "fewer than a batch wait for the poster's flush")
        bus.post(.taskReady(task: "last of the batch"))
        #expect(handOff.count == 1)
        #expect(sink.events.isEmpty, "nothing is written on the poster's thread")

        // More posted while the hand-off queue has not run yet: one drainer takes them all.
        for index in 0..<EventBus.streamBatch { bus.post(.taskReady(task: "u\(index)")) }
        #expect(handOff.count == 1)
        handOff.runAll()
        #expect(sink.events.map(\.seq) == Array(1...(2 * EventBus.streamBatch)))

        // Once it has drained, the next batch starts it again.
        for index in 0..<EventBus.streamBatch { bus.post(.taskReady(task: "v\(index)")) }
        #expect(handOff.count == 1)
        handOff.runAll()
        bus.finish()
        #expect(sink.events.map(\.seq) == Array(1...(3 * EventBus.streamBatch)))
    }

    /// 3,000 tasks in a chain, every one up to date: the whole run is one step of the engine's.
    @Test func aNoOpRunsEventsReachTheSinksInBatchesAsTheStepGoesOn() throws {
        let count = 3_000
        var yaml = "version: 1\nconcurrency: 1\ntasks:\n  t0: {shell: x}\n"
        for index in 1..<count { yaml += "  t\(index): {shell: x, needs: [t\(index - 1)]}\n" }
        let plan = try PlannedTasks.plan(yaml)
        let loop = ManualRunLoop(now: 1_000)
        let sink = BatchSink()
        let bus = EventBus(sinks: [sink], handOff: { $0() })
        let gate = CountingGate(sink: sink)
        let engine = Engine(
            plan: plan, runner: FakeTaskRunner(clock: loop), loop: loop, bus: bus,
            options: .init(concurrency: 1, failFast: true), gate: gate)
        engine.start()
        loop.runPosted()
        bus.finish()

        #expect(engine.status == .succeeded)
        let events = sink.events
        #expect(events.count == 2 * count + 2, "started, a ready and a skip a task, finished")
        #expect(events.map(\.seq) == Array(1...events.count))
        #expect(sink.batches.max() ?? 0 <= EventBus.streamBatch, "\(sink.batches)")
        #expect(gate.eventsSeenAtLastAsk > 0, "the sinks had events while the step was still asking the gate")
    }

    /// Skips every task, and notes how many events the sink had when the last task was asked about.
    final class CountingGate: TaskGate, @unchecked Sendable {
        let sink: BatchSink
        private(set) var eventsSeenAtLastAsk = 0

        init(sink: BatchSink) { self.sink = sink }

        func skipReason(for task: Int) -> String? {
            eventsSeenAtLastAsk = sink.count
            return SkipReason.upToDate
        }

        func taskSucceeded(_ task: Int) {}
    }
}
