import FlowModel
import Foundation
import Testing
@testable import FlowEngine

/// The bus with many threads emitting at once: each event reaches the sinks once, in `seq`
/// order, with no gap, never two sink calls at the same time, each by the time its `emit`
/// returns, and all before `finish`.
@Suite struct EventBusTests {
    /// Records what it is handed and whether two calls ever overlapped.
    final class RecordingSink: EventSink, @unchecked Sendable {
        private let lock = NSLock()
        private var inside = false
        private(set) var overlapped = false
        private(set) var events: [RunEvent] = []
        private(set) var finishedAfter: Int?

        func receive(_ event: RunEvent) { receive([event]) }

        func receive(_ batch: [RunEvent]) {
            enter()
            lock.withLock { events += batch }
            leave()
        }

        func finish() {
            enter()
            lock.withLock { finishedAfter = events.count }
            leave()
        }

        private func enter() {
            lock.withLock {
                if inside { overlapped = true }
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
        // Every event is with the sinks once its emit has returned, none left waiting for a
        // later one: a tail of a stream shows each as it happens.
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
