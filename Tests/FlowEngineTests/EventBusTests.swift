import FlowModel
import Foundation
import Testing

@testable import FlowEngine

/// The bus with many threads emitting at once: each event reaches the sinks once, in `seq`
/// order, with no gap, never two sink calls at the same time, without waiting for `finish`,
/// and all before `finish` returns.
@Suite struct EventBusTests {
    /// Records what it is handed and whether two calls ever overlapped.
    final class RecordingSink: EventSink, @unchecked Sendable {
        private let lock = NSLock()
        private var inside = false
        private var overlappedStored = false
        private var eventsStored: [RunEvent] = []
        private var finishedAfterStored: Int?

        var overlapped: Bool { lock.withLock { overlappedStored } }
        var events: [RunEvent] { lock.withLock { eventsStored } }
        var finishedAfter: Int? { lock.withLock { finishedAfterStored } }

        func receive(_ event: RunEvent) { receive([event]) }

        func receive(_ batch: [RunEvent]) {
            enter()
            lock.withLock { eventsStored += batch }
            leave()
        }

        func finish() {
            enter()
            lock.withLock { finishedAfterStored = eventsStored.count }
            leave()
        }

        private func enter() {
            lock.withLock {
                if inside { overlappedStored = true }
                inside = true
            }
            usleep(0)  // leaves room for another thread to come in, if the bus let it
        }

        private func leave() { lock.withLock { inside = false } }
    }

    @Test func eventsFromManyThreadsArriveOnceInSeqOrderAndEachThreadsInItsOwnOrder() {
        let sink = RecordingSink()
        let bus = EventBus(sinks: [sink])
        let threads = 4
        let perThread = 5_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                bus.emit(.taskOutput(task: "t\(thread)", stream: .stdout, line: "\(index)"))
            }
        }
        // Every event reaches the sinks without a later emit or `finish` to push it: a tail of
        // the stream sees each as it happens. (A late one may be on the bus's queue still.)
        let deadline = Date().addingTimeInterval(120)  // a hang guard only
        while sink.events.count < threads * perThread && Date() < deadline { usleep(1_000) }
        #expect(sink.events.count == threads * perThread)
        bus.finish()
        bus.emit(.queueSuspended)  // after finish: dropped

        #expect(!sink.overlapped)
        #expect(sink.finishedAfter == threads * perThread)
        #expect(sink.events.map(\.seq) == Array(1...(threads * perThread)))
        for thread in 0..<threads {
            let lines = sink.events.compactMap { event -> Int? in
                guard case .taskOutput(let task, _, let line) = event.kind, task == "t\(thread)" else { return nil }
                return Int(line)
            }
            #expect(lines == Array(0..<perThread), "thread \(thread)")
        }
    }

    /// Holds every batch until the test opens it, as a stdout nobody reads holds a write.
    final class GatedSink: EventSink, @unchecked Sendable {
        private let condition = NSCondition()
        private var open = false
        private var entered = false
        private var receivedStored: [RunEvent] = []

        var received: [RunEvent] { condition.withLock { receivedStored } }

        func receive(_ event: RunEvent) { receive([event]) }

        func receive(_ batch: [RunEvent]) {
            condition.withLock {
                entered = true
                condition.broadcast()
                while !open { condition.wait() }
                receivedStored += batch
            }
        }

        func finish() {}

        /// Waits until a batch is inside `receive` (at most 600 s, a hang guard: the bus's queue
        /// can wait that long for a thread with the suite's other tests on a loaded machine).
        func waitUntilEntered() -> Bool {
            condition.withLock {
                let deadline = Date().addingTimeInterval(600)
                while !entered && condition.wait(until: deadline) {}
                return entered
            }
        }

        func letThrough() {
            condition.withLock {
                open = true
                condition.broadcast()
            }
        }
    }

    @Test func outputReadersWaitWhileTheSinksAreBehindAndGoOnOnceTheyCaughtUp() {
        let sink = GatedSink()
        let bus = EventBus(sinks: [sink], maxHeldBytes: 64 * 1024)
        let line = String(repeating: "x", count: 1000)
        #expect(bus.hasRoom { Issue.record("called back although there was room") })

        // 100 KB of output, written on the bus's queue (not this thread), which the sink holds.
        for _ in 0..<100 { bus.post(.taskOutput(task: "t", stream: .stdout, line: line)) }
        bus.flushElsewhere()
        #expect(sink.waitUntilEntered())
        let called = NSCondition()
        nonisolated(unsafe) var calledBack = 0
        #expect(
            !bus.hasRoom {
                called.withLock {
                    calledBack += 1; called.broadcast()
                }
            })
        // The engine's events are still taken while readers wait.
        bus.post(.taskSucceeded(task: "t", attempts: 1, durationMilliseconds: 1))
        bus.flushElsewhere()
        #expect(called.withLock { calledBack } == 0)

        sink.letThrough()
        let caughtUp = called.withLock {
            let deadline = Date().addingTimeInterval(600)  // a hang guard only, as above
            while calledBack == 0 && called.wait(until: deadline) {}
            return calledBack == 1
        }
        #expect(caughtUp)
        #expect(bus.hasRoom { Issue.record("called back although there was room") })
        bus.finish()
        #expect(sink.received.count == 101)
        #expect(sink.received.map(\.seq) == Array(1...101))
    }
}
