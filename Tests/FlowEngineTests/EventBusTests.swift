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
        let deadline = Date().addingTimeInterval(10)
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
}
