import FlowModel
import FlowPlanning

/// The scheduling decisions of a run as a pure state machine: which tasks are ready, which start
/// next within the global and per-queue limits, which are skipped. It never touches a thread, a
/// process or a clock; the engine feeds it what happened and performs the actions it returns.
package struct Scheduler: Sendable {
    package enum Action: Equatable, Sendable {
        /// The task's `when` is met; it waits for a slot.
        case ready(Int)
        /// Start the task now: a slot in its queue and the global limit is reserved for it.
        case start(Int)
        /// The task will never run.
        case skip(Int, reason: String)
        /// Every task has its final state.
        case finish(RunStatus)
    }

    /// How an attempted task ended, as far as its dependents care.
    package enum Outcome: Sendable {
        case succeeded
        case failed
        case cancelled
    }

    private let tasks: [TaskInfo]
    private let dependents: Dependents
    private let queueLimits: [Int]
    private let globalLimit: Int
    private let failFast: Bool

    private var remainingNeeds: [Int]
    /// A need failed, or was skipped because something before it failed (for `when: failure`).
    private var upstreamFailed: [Bool]
    /// The first need that did not succeed, for the skip reason.
    private var blockingNeed: [Int?]
    private var done: [Bool]
    private var ready: [PriorityQueue]
    /// The first ready task of each queue that has a free slot, and stale entries (a task no
    /// longer first, or its queue full) that `fillSlots` drops as it meets them: so picking the
    /// next task does not look at every queue (20,000 queues made a run quadratic).
    private var heads = PriorityQueue()
    private var runningInQueue: [Int]
    private var running = 0
    private var finishedCount = 0
    private var sawFailure = false
    private var cancelReason: String?
    /// Why cleanup tasks (`when: always`, after a cancel) no longer start: the grace period is
    /// over, or the run was killed.
    private var cleanupClosedReason: String?
    package private(set) var isSuspended = false

    /// What the scheduler needs to know of one task.
    package struct TaskInfo: Sendable {
        package var needs: [Int]
        package var when: When
        /// Index into the queue limits; 0 is the default queue.
        package var queue: Int
        package var priority: Priority
        package var fileIndex: Int
        package var continueOnError: Bool
        package var id: TaskID
    }

    /// - Parameter failFast: false for `fail_fast: false` or `--keep-going`.
    package init(tasks: [TaskInfo], queueLimits: [Int], globalLimit: Int, failFast: Bool) {
        self.tasks = tasks
        self.queueLimits = queueLimits
        self.globalLimit = globalLimit
        self.failFast = failFast
        dependents = Dependents(count: tasks.count) { tasks[$0].needs }
        // A closure, not `\.needs.count`: a key path is applied at run time (2,000 instructions a task).
        remainingNeeds = tasks.map { $0.needs.count }
        upstreamFailed = [Bool](repeating: false, count: tasks.count)
        blockingNeed = [Int?](repeating: nil, count: tasks.count)
        done = [Bool](repeating: false, count: tasks.count)
        ready = queueLimits.map { _ in PriorityQueue() }
        runningInQueue = [Int](repeating: 0, count: queueLimits.count)
    }

    /// The plan's tasks as the scheduler sees them; queue 0 is the default queue (limited only
    /// by the global limit), named queues follow in declaration order.
    package init(plan: Plan, globalLimit: Int, failFast: Bool) {
        let queues = plan.workflow.queues
        var queueIndex: [String: Int] = [:]
        for (index, queue) in queues.enumerated() { queueIndex[queue.name] = index + 1 }
        // Read in place: `map` over `plan.tasks` would copy each whole task to read a few fields.
        let tasks = plan.tasks.withUnsafeBufferPointer { planned in
            planned.indices.map { index in
                TaskInfo(
                    needs: planned[index].needs, when: planned[index].spec.when,
                    queue: planned[index].spec.queue.flatMap { queueIndex[$0] } ?? 0, priority: planned[index].spec.priority,
                    fileIndex: planned[index].fileIndex, continueOnError: planned[index].spec.continueOnError, id: planned[index].spec.id)
            }
        }
        self.init(tasks: tasks, queueLimits: [globalLimit] + queues.map(\.concurrency), globalLimit: globalLimit, failFast: failFast)
    }

    // MARK: Inputs

    /// Tasks that need nothing become ready; the first of them start.
    package mutating func begin() -> [Action] {
        var actions: [Action] = []
        for task in tasks.indices where tasks[task].needs.isEmpty { settle(task, into: &actions) }
        fillSlots(into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// A started task ended; its dependents may become ready, and its slot is free again.
    package mutating func taskFinished(_ task: Int, _ outcome: Outcome) -> [Action] {
        precondition(!done[task], "task \(tasks[task].id) finished twice")
        var actions: [Action] = []
        running -= 1
        let queue = tasks[task].queue
        runningInQueue[queue] -= 1
        if runningInQueue[queue] == queueLimits[queue] - 1 { offerHead(of: queue) }
        let tolerated = tasks[task].continueOnError && outcome == .failed
        let failure = outcome == .failed && !tolerated
        if failure {
            sawFailure = true
            if failFast { skipWaitingSuccessTasks(into: &actions) }
        }
        complete(task, succeeded: outcome == .succeeded || tolerated, failure: failure, into: &actions)
        fillSlots(into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// Waiting tasks are skipped, except `when: always` ones: those start as cleanup once their
    /// needs have ended, as GitHub runs `always()` steps of a cancelled workflow. A suspension
    /// ends, so that cleanup can start. Stopping running tasks is the engine's job. With
    /// `withCleanup: false` (a kill follows), every waiting task is skipped.
    package mutating func cancel(reason: String, withCleanup: Bool = true) -> [Action] {
        guard cancelReason == nil else { return [] }
        cancelReason = reason
        if !withCleanup { cleanupClosedReason = reason }
        isSuspended = false
        var actions: [Action] = []
        skipReady(where: { $0 != .always || !withCleanup }, reason: reason, into: &actions)
        fillSlots(into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// No cleanup task starts any more (the grace period is over, or the run is killed): those
    /// waiting are skipped with `reason`.
    package mutating func closeCleanup(reason: String) -> [Action] {
        guard cancelReason != nil, cleanupClosedReason == nil else { return [] }
        cleanupClosedReason = reason
        var actions: [Action] = []
        skipReady(where: { _ in true }, reason: reason, into: &actions)
        finishIfDone(into: &actions)
        return actions
    }

    /// The `when: always` tasks that have not ended: after a cancel, the cleanup to come.
    package var unfinishedAlwaysTasks: [Int] {
        tasks.indices.filter { tasks[$0].when == .always && !done[$0] }
    }

    /// Running tasks go on; none starts until `resume()`. False if already suspended.
    package mutating func suspend() -> Bool {
        defer { isSuspended = true }
        return !isSuspended
    }

    /// Starts what the suspension held back; empty if the scheduler was not suspended.
    package mutating func resume() -> [Action] {
        guard isSuspended else { return [] }
        isSuspended = false
        var actions: [Action] = []
        fillSlots(into: &actions)
        return actions
    }

    package var runningCount: Int { running }

    /// The queue a task runs in: 0 is the default queue, named queues follow in file order.
    package func queue(of task: Int) -> Int { tasks[task].queue }

    // MARK: Transitions

    /// Skips the ready tasks whose `when` matches, in task order.
    private mutating func skipReady(where matches: (When) -> Bool, reason: String, into actions: inout [Action]) {
        let tasks = tasks
        var skipped: [Int] = []
        for queue in ready.indices {
            let removed = ready[queue].removeAll { matches(tasks[$0].when) }
            if !removed.isEmpty { offerHead(of: queue) }
            skipped += removed
        }
        for task in skipped.sorted() {
            actions.append(.skip(task, reason: reason))
            complete(task, succeeded: false, failure: false, into: &actions)
        }
    }

    /// Marks a task done and settles every dependent whose needs are now all done. A worklist,
    /// not recursion: a skip can run down a 100,000-task chain.
    private mutating func complete(_ task: Int, succeeded: Bool, failure: Bool, into actions: inout [Action]) {
        var worklist = [(task: task, succeeded: succeeded, failure: failure)]
        while let (task, succeeded, failure) = worklist.popLast() {
            done[task] = true
            finishedCount += 1
            for dependent in dependents[task] {
                if !succeeded, blockingNeed[dependent] == nil { blockingNeed[dependent] = task }
                if failure { upstreamFailed[dependent] = true }
                remainingNeeds[dependent] -= 1
                guard remainingNeeds[dependent] == 0 else { continue }
                if let reason = skipReason(dependent) {
                    actions.append(.skip(dependent, reason: reason))
                    worklist.append((dependent, false, upstreamFailed[dependent] && cancelReason == nil))
                } else {
                    makeReady(dependent, into: &actions)
                }
            }
        }
    }

    /// Decides a task whose needs are all done: ready, or skipped.
    private mutating func settle(_ task: Int, into actions: inout [Action]) {
        if let reason = skipReason(task) {
            actions.append(.skip(task, reason: reason))
            complete(task, succeeded: false, failure: false, into: &actions)
        } else {
            makeReady(task, into: &actions)
        }
    }

    /// Why a task whose needs are all done will not run, or nil if its `when` is met.
    private func skipReason(_ task: Int) -> String? {
        if let cleanupClosedReason { return cleanupClosedReason }
        if let cancelReason, tasks[task].when != .always { return cancelReason }
        switch tasks[task].when {
        case .success:
            if let need = blockingNeed[task] { return "needs '\(tasks[need].id)', which did not succeed" }
            if failFast && sawFailure { return "an earlier task failed (fail_fast)" }
            return nil
        case .failure:
            return upstreamFailed[task] ? nil : "no need failed (when: failure)"
        case .always:
            return nil
        }
    }

    private mutating func makeReady(_ task: Int, into actions: inout [Action]) {
        actions.append(.ready(task))
        let queue = tasks[task].queue
        ready[queue].push(task, priority: tasks[task].priority.rank, order: tasks[task].fileIndex)
        if ready[queue].firstTask == task { offerHead(of: queue) }
    }

    /// Puts the first ready task of `queue` among the heads, if the queue has a free slot.
    private mutating func offerHead(of queue: Int) {
        guard runningInQueue[queue] < queueLimits[queue], let task = ready[queue].firstTask else { return }
        heads.push(task, priority: tasks[task].priority.rank, order: tasks[task].fileIndex)
    }

    /// Under fail_fast, ready tasks that need success will not start: they end skipped.
    private mutating func skipWaitingSuccessTasks(into actions: inout [Action]) {
        skipReady(where: { $0 == .success }, reason: "an earlier task failed (fail_fast)", into: &actions)
    }

    /// Starts the most urgent ready tasks while the global limit and their queues' limits allow.
    private mutating func fillSlots(into actions: inout [Action]) {
        guard !isSuspended, cleanupClosedReason == nil else { return }
        while running < globalLimit, let task = heads.pop() {
            let queue = tasks[task].queue
            guard ready[queue].firstTask == task, runningInQueue[queue] < queueLimits[queue] else { continue }  // stale
            _ = ready[queue].pop()
            running += 1
            runningInQueue[queue] += 1
            actions.append(.start(task))
            offerHead(of: queue)
        }
    }

    private mutating func finishIfDone(into actions: inout [Action]) {
        guard finishedCount == tasks.count, running == 0 else { return }
        finishedCount += 1  // report once
        let status: RunStatus = cancelReason != nil ? .cancelled : sawFailure ? .failed : .succeeded
        actions.append(.finish(status))
    }
}
