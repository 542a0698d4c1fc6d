import FlowModel
import Testing

@testable import FlowEngine

// Whole runs through the scheduler, checked action by action against the spec's rules, over
// random graphs from a seeded generator and over two 100,000-task graphs.

/// SplitMix64: small, seeded, the same on every platform.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
}

/// Follows a run from the actions the scheduler returns and records every rule they break.
struct SchedulerChecker {
    enum State { case pending, ready, running, succeeded, failed, cancelled, skipped }
    enum Event { case suspend, resume, cancel }

    let specs: [SchedSpec]
    let queueLimits: [Int]
    let global: Int
    let failFast: Bool
    /// Also checks priority order and that no slot idles while a task waits (quadratic).
    let thorough: Bool
    private(set) var state: [State]
    private(set) var problems: [String] = []
    private(set) var status: RunStatus?
    private(set) var finals = 0
    private(set) var lastAction: Scheduler.Action?
    private var okForDependents: [Bool]
    /// Failed, or skipped (not by cancel) because a need carried a failure: what `when: failure` looks for.
    private var carriesFailure: [Bool]
    private var waiting = Set<Int>()
    private var running: [Int] = []  // in start order; `head` is the oldest still running
    private var head = 0
    private var runningInQueue: [Int]
    private var suspended = false
    private var cancelReason: String?
    private var sawFailure = false

    init(_ specs: [SchedSpec], queues: [Int], global: Int, failFast: Bool, thorough: Bool) {
        self.specs = specs
        queueLimits = queues
        self.global = global
        self.failFast = failFast
        self.thorough = thorough
        state = Array(repeating: .pending, count: specs.count)
        okForDependents = Array(repeating: false, count: specs.count)
        carriesFailure = Array(repeating: false, count: specs.count)
        runningInQueue = Array(repeating: 0, count: queues.count)
    }

    private mutating func problem(_ text: String) { if problems.count < 20 { problems.append(text) } }
    private var failFastActive: Bool { failFast && sawFailure }
    private func key(_ task: Int) -> PriorityQueue.Key {
        PriorityQueue.Key(priority: specs[task].priority.rank, order: specs[task].fileIndex ?? task)
    }
    private func hasFreeSlot(_ task: Int) -> Bool { runningInQueue[specs[task].queue] < queueLimits[specs[task].queue] }
    private var runningCount: Int { running.count - head }

    mutating func apply(_ actions: [Scheduler.Action], after input: String) {
        for action in actions {
            if status != nil { problem("\(input): \(action) after the finish") }
            lastAction = action
            switch action {
            case .ready(let task):
                let needs = specs[task].needs
                if state[task] != .pending { problem("\(input): t\(task) ready while \(state[task])") }
                if needs.contains(where: { !isFinal($0) }) { problem("\(input): t\(task) ready before its needs ended") }
                // After a cancel, only `when: always` tasks become ready: they run as cleanup.
                if cancelReason != nil && specs[task].when != .always { problem("\(input): t\(task) ready after cancel") }
                switch specs[task].when {
                case .success where !needs.allSatisfy({ okForDependents[$0] }) || failFastActive,
                    .failure where !needs.contains(where: { carriesFailure[$0] }):
                    problem("\(input): t\(task) ready though its when (\(specs[task].when)) is not met")
                default: break
                }
                state[task] = .ready
                waiting.insert(task)
            case .start(let task):
                if state[task] != .ready { problem("\(input): t\(task) started while \(state[task])") }
                if suspended || (cancelReason != nil && specs[task].when != .always) {
                    problem("\(input): t\(task) started while suspended or cancelled")
                }
                if runningCount >= global { problem("\(input): t\(task) started beyond the global limit") }
                if !hasFreeSlot(task) { problem("\(input): t\(task) started beyond its queue's limit") }
                if failFastActive && specs[task].when == .success { problem("\(input): t\(task) started after a failure") }
                if thorough, let better = waiting.first(where: { $0 != task && hasFreeSlot($0) && key($0) < key(task) }) {
                    problem("\(input): t\(task) started before t\(better)")
                }
                state[task] = .running
                waiting.remove(task)
                running.append(task)
                runningInQueue[specs[task].queue] += 1
            case .skip(let task, let reason):
                let needs = specs[task].needs
                if state[task] != .pending && state[task] != .ready { problem("\(input): t\(task) skipped while \(state[task])") }
                if needs.contains(where: { !isFinal($0) }) { problem("\(input): t\(task) skipped before its needs ended") }
                if let cancelReason {
                    if reason != cancelReason { problem("\(input): t\(task) skipped for '\(reason)' after cancel") }
                    if specs[task].when == .always { problem("\(input): cleanup t\(task) skipped after cancel") }
                } else {
                    let wrong =
                        switch specs[task].when {
                        case .success: needs.allSatisfy { okForDependents[$0] } && !failFastActive
                        case .always: true
                        case .failure: needs.contains { carriesFailure[$0] }
                        }
                    if wrong { problem("\(input): t\(task) (when: \(specs[task].when)) skipped: \(reason)") }
                    carriesFailure[task] = needs.contains { carriesFailure[$0] }
                }
                state[task] = .skipped
                waiting.remove(task)
                finals += 1
            case .finish(let finished):
                let expected: RunStatus = cancelReason != nil ? .cancelled : sawFailure ? .failed : .succeeded
                if finals != specs.count || runningCount != 0 { problem("\(input): finish with tasks not ended") }
                if finished != expected { problem("\(input): finish(\(finished)), expected \(expected)") }
                status = finished
            }
        }
        guard thorough, status == nil, cancelReason == nil else { return }
        if !suspended, runningCount < global, let idle = waiting.first(where: hasFreeSlot) {
            problem("\(input): t\(idle) waits while a slot is free")
        }
        if failFastActive, let task = waiting.first(where: { specs[$0].when == .success }) {
            problem("\(input): t\(task) still waits to run after a failure")
        }
    }

    private func isFinal(_ task: Int) -> Bool {
        switch state[task] {
        case .pending, .ready, .running: false
        case .succeeded, .failed, .cancelled, .skipped: true
        }
    }

    /// Finishes the oldest running task with `outcome` (or `.cancelled` after a cancel, unless
    /// it is cleanup: `when: always`).
    mutating func finishOldest(_ scheduler: inout Scheduler, outcome: (Int) -> Scheduler.Outcome) -> Bool {
        guard head < running.count else { return false }
        let task = running[head]
        head += 1
        runningInQueue[specs[task].queue] -= 1
        let result = cancelReason != nil && specs[task].when != .always ? .cancelled : outcome(task)
        switch result {
        case .succeeded: state[task] = .succeeded
        case .failed: state[task] = .failed
        case .cancelled: state[task] = .cancelled
        }
        okForDependents[task] = result == .succeeded || (result == .failed && specs[task].continueOnError)
        if result == .failed && !specs[task].continueOnError { (sawFailure, carriesFailure[task]) = (true, true) }
        finals += 1
        apply(scheduler.taskFinished(task, result), after: "t\(task) \(result)")
        return true
    }

    mutating func send(_ event: Event, to scheduler: inout Scheduler) {
        switch event {
        case .suspend:
            if scheduler.suspend() == suspended { problem("suspend() misreported the previous state") }
            suspended = true
        case .resume:
            let actions = scheduler.resume()
            if !suspended && !actions.isEmpty { problem("resume() without suspend: \(actions)") }
            suspended = false
            apply(actions, after: "resume")
        case .cancel:
            let actions = scheduler.cancel(reason: "cancelled by test")
            if cancelReason != nil && !actions.isEmpty { problem("second cancel: \(actions)") }
            cancelReason = "cancelled by test"
            suspended = false  // so that cleanup can start
            apply(actions, after: "cancel")
        }
    }

    /// Runs a graph to its finish: after `begin()`, repeatedly finishes the oldest running task,
    /// letting `events` suspend, resume or cancel before each step (step 0 is before `begin()`).
    static func run(
        _ specs: [SchedSpec], queues: [Int]? = nil, global: Int, failFast: Bool = true,
        thorough: Bool = true, outcome: (Int) -> Scheduler.Outcome,
        events: (Int) -> Event? = { _ in nil }
    ) -> SchedulerChecker {
        let queues = queues ?? [global]
        var scheduler = Scheduler(specs, queues: queues, global: global, failFast: failFast)
        var checker = SchedulerChecker(specs, queues: queues, global: global, failFast: failFast, thorough: thorough)
        if let event = events(0) { checker.send(event, to: &scheduler) }
        checker.apply(scheduler.begin(), after: "begin")
        var step = 1
        while checker.status == nil {
            if let event = events(step) { checker.send(event, to: &scheduler) }
            step += 1
            if checker.status != nil || checker.finishOldest(&scheduler, outcome: outcome) { continue }
            if checker.suspended {
                checker.send(.resume, to: &scheduler)
            } else {
                checker.problem("stuck: nothing runs and no finish")
                break
            }
        }
        // The finish is reported once: a late cancel must not produce another.
        if checker.status != nil, scheduler.cancel(reason: "late") != [] { checker.problem("actions after the finish") }
        return checker
    }
}

/// A random graph: needs point to earlier tasks; limits, queues, priorities, when, file order,
/// continue_on_error and outcomes all drawn from `rng`.
struct RandomGraph {
    var specs: [SchedSpec] = []
    var outcomes: [Scheduler.Outcome] = []
    var queues: [Int]
    var global: Int

    init(count: Int, window: Int, queueCount: Int, failurePercent: Int, using rng: inout SplitMix64) {
        global = Int.random(in: 1...4, using: &rng)
        queues = (0..<queueCount).map { _ in Int.random(in: 1...4, using: &rng) }
        var fileOrder = Array(0..<count)
        fileOrder.shuffle(using: &rng)
        for task in 0..<count {
            let earlier = max(0, task - window)..<task
            let needs = Array(
                Set(
                    (0..<Int.random(in: 0...min(3, earlier.count), using: &rng)).map { _ in
                        Int.random(in: earlier, using: &rng)
                    })
            ).sorted()
            let roll = Int.random(in: 0..<100, using: &rng)
            let when: When = roll < 70 ? .success : roll < 85 ? .failure : .always
            specs.append(
                SchedSpec(
                    needs: needs, when: when, queue: Int.random(in: 0..<queueCount, using: &rng),
                    priority: Priority.allCases.randomElement(using: &rng)!,
                    continueOnError: rng.chance(10), fileIndex: fileOrder[task]))
            outcomes.append(rng.chance(failurePercent) ? .failed : .succeeded)
        }
    }
}

@Suite struct SchedulerPropertyTests {
    /// 400 random graphs in four batches, with random suspends, resumes and the odd cancel.
    @Test(arguments: 0..<4)
    func randomGraphsKeepEveryRule(batch: UInt64) {
        for seed in batch * 100..<(batch + 1) * 100 {
            var rng = SplitMix64(state: seed)
            let graph = RandomGraph(
                count: Int.random(in: 0...30, using: &rng), window: 30,
                queueCount: Int.random(in: 1...3, using: &rng), failurePercent: 20, using: &rng)
            let failFast = rng.chance(50)
            let cancelPercent = rng.chance(30) ? 4 : 0
            let result = SchedulerChecker.run(
                graph.specs, queues: graph.queues, global: graph.global, failFast: failFast,
                outcome: { graph.outcomes[$0] }
            ) { _ in
                let roll = Int.random(in: 0..<100, using: &rng)
                return roll < cancelPercent ? .cancel : roll < 12 ? .suspend : roll < 25 ? .resume : nil
            }
            #expect(result.problems == [], "seed \(seed)")
            #expect(result.status != nil, "seed \(seed)")
            #expect(result.finals == graph.specs.count, "seed \(seed): every task gets one final state")
        }
    }

    /// 200 random graphs with many queues: the next task is picked from the queues' first
    /// tasks (`heads`), which must stay right as queues fill, empty and free their slots.
    @Test(arguments: 0..<2)
    func randomGraphsWithManyQueuesKeepEveryRule(batch: UInt64) {
        for seed in 10_000 + batch * 100..<10_000 + (batch + 1) * 100 {
            var rng = SplitMix64(state: seed)
            let graph = RandomGraph(
                count: Int.random(in: 0...80, using: &rng), window: 20,
                queueCount: Int.random(in: 5...40, using: &rng), failurePercent: 15, using: &rng)
            let failFast = rng.chance(50)
            let result = SchedulerChecker.run(
                graph.specs, queues: graph.queues, global: graph.global, failFast: failFast,
                outcome: { graph.outcomes[$0] }
            ) { _ in
                let roll = Int.random(in: 0..<100, using: &rng)
                return roll < 2 ? .cancel : roll < 10 ? .suspend : roll < 25 ? .resume : nil
            }
            #expect(result.problems == [], "seed \(seed)")
            #expect(result.finals == graph.specs.count, "seed \(seed): every task gets one final state")
        }
    }

    @Test(arguments: [Scheduler.Outcome.succeeded, .failed])
    func hundredThousandTaskChain(first: Scheduler.Outcome) {
        let count = 100_000
        let specs = (0..<count).map { $0 == 0 ? SchedSpec.t() : .t($0 - 1) }
        let result = SchedulerChecker.run(specs, global: 4, thorough: false, outcome: { $0 == 0 ? first : .succeeded })
        #expect(result.problems == [])
        #expect(result.finals == count)
        #expect(result.lastAction == .finish(first == .succeeded ? .succeeded : .failed))
    }

    @Test func hundredThousandTaskRandomGraph() {
        var rng = SplitMix64(state: 0x5EED)
        let graph = RandomGraph(count: 100_000, window: 200, queueCount: 3, failurePercent: 1, using: &rng)
        let result = SchedulerChecker.run(
            graph.specs, queues: graph.queues, global: graph.global, failFast: false,
            thorough: false, outcome: { graph.outcomes[$0] })
        #expect(result.problems == [])
        #expect(result.finals == graph.specs.count)
        #expect(result.lastAction == .finish(.failed))
    }
}
