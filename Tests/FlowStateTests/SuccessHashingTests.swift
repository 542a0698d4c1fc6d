import FlowEngine
import FlowFiles
import FlowModel
import FlowPlanning
import FlowTestSupport
import Foundation
import Testing

@testable import FlowState

/// A finished task's files are hashed off the engine's loop (`UpToDateCheck.taskSucceeded(_:recorded:)`):
/// while a large output is hashed, the other tasks end, start and have their events written; the
/// task itself ends, and its dependents start, once its state is recorded. The hash of `/w/big`
/// waits for the test to let it go; one asked for on the loop's thread (the test's) cannot wait,
/// and is noted instead: the loop was held up.
///
/// The loop and the disk are made in each test's body, on the thread it runs on (it never suspends).
@Suite struct SuccessHashingTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("success-hashing-\(UUID().uuidString)").path

    static let yaml = """
        version: 1
        concurrency: 2
        tasks:
          big: {outputs: [/w/big], shell: 'make big'}
          small1: {outputs: [/w/small1], shell: 'make small1'}
          small2: {outputs: [/w/small2], shell: 'make small2'}
          after: {needs: [big], inputs: [/w/big], outputs: [/w/after], shell: 'make after'}
        """

    func check(_ plan: Plan, on disk: GatedFileSystem) -> UpToDateCheck {
        UpToDateCheck(
            plan: plan, states: TaskStates(folder: StateFolder(path: base + "/.flowrun"), workflowFile: base + "/w.yaml"),
            force: false, fileSystem: disk)
    }

    /// A run of the plan on the manual loop, with `gate` as its up-to-date check.
    struct Run {
        let runner: FakeTaskRunner
        let sink = InMemoryEventSink()
        let engine: Engine

        init(_ plan: Plan, loop: InboxLoop, gate: UpToDateCheck) {
            runner = FakeTaskRunner(clock: loop)
            engine = Engine(
                plan: plan, runner: runner, loop: loop, bus: EventBus(sinks: [sink], handOff: { $0() }),
                options: .init(concurrency: plan.concurrency, failFast: true), gate: gate, jitter: { 1 })
        }

        var started: [TaskID] { runner.attempts.map(\.task) }

        func hasSucceeded(_ task: TaskID) -> Bool {
            sink.kinds.contains { if case .taskSucceeded(task, _, _) = $0 { true } else { false } }
        }

        var finished: RunStatus? {
            for case .workflowFinished(_, let status, _, _) in sink.kinds { return status }
            return nil
        }
    }

    /// Ends `task`'s attempt with its output written, and lets the loop run what that posts.
    func end(_ task: TaskID, in run: Run, disk: GatedFileSystem, loop: InboxLoop) throws {
        disk.write("/w/\(task)", "made by \(task)")
        try #require(run.runner.running(task), "'\(task)' is not running").end(.succeeded)
        loop.runPosted()
    }

    @Test func theLoopGoesOnWhileALargeOutputIsHashed() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (disk, loop) = (GatedFileSystem(gated: "/w/big"), InboxLoop())
        let plan = try PlannedTasks.plan(Self.yaml, directory: base)
        let gate = check(plan, on: disk)
        let run = Run(plan, loop: loop, gate: gate)
        run.engine.start()
        loop.runPosted()
        #expect(run.started == ["big", "small1"])

        try end("big", in: run, disk: disk, loop: loop)
        try #require(!disk.hashedOnTheLoop, "the output was hashed on the loop, which waited for it")
        #expect(!run.hasSucceeded("big"), "it ends once its files are hashed")

        try end("small1", in: run, disk: disk, loop: loop)
        loop.waitForPost()  // small1's files hashed, while big's are held
        loop.runPosted()
        #expect(run.hasSucceeded("small1"))
        #expect(run.started == ["big", "small1", "small2"], "small2 started in small1's slot; big's is held, and so is after")

        disk.letGo()
        loop.waitForPost()
        loop.runPosted()
        #expect(run.hasSucceeded("big"))
        #expect(run.started.last == "after", "the dependent starts once its need's outputs are hashed")
        #expect(gate.builtRecord(at: 0) != nil, "big's success is recorded with its output's digest")

        for task: TaskID in ["small2", "after"] {
            try end(task, in: run, disk: disk, loop: loop)
            loop.waitForPost()
            loop.runPosted()
        }
        #expect(run.finished == .succeeded)
        gate.finish()
        #expect(gate.writeFailure == nil)

        let next = check(plan, on: disk)
        for index in plan.tasks.indices {
            #expect(next.skipReason(for: index) == UpToDateCheck.reason, "\(plan.tasks[index].id) is up to date next time")
        }
        next.finish()
    }

    @Test func aCtrlCWhileAnOutputIsHashedRecordsNothingOfIt() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let (disk, loop) = (GatedFileSystem(gated: "/w/big"), InboxLoop())
        let plan = try PlannedTasks.plan(Self.yaml, directory: base)
        let gate = check(plan, on: disk)
        let run = Run(plan, loop: loop, gate: gate)
        run.engine.start()
        loop.runPosted()

        try end("big", in: run, disk: disk, loop: loop)
        try #require(!disk.hashedOnTheLoop, "the output was hashed on the loop, which waited for it")
        run.engine.cancel(reason: "interrupted")
        loop.runPosted()
        #expect(run.finished == nil, "the run ends once big's hashing has stopped")

        disk.letGo()
        loop.waitForPost()
        loop.runPosted()
        #expect(run.hasSucceeded("big"), "its command succeeded")
        #expect(gate.builtRecord(at: 0) == nil, "its success is not recorded from a hash Ctrl-C cut short")
        try #require(run.runner.running("small1")).end(.failed(reason: "terminated", exitCode: nil))
        loop.runPosted()
        #expect(run.finished == .cancelled)
        gate.finish()

        let next = check(plan, on: disk)
        #expect(next.skipReason(for: 0) == nil, "big runs again next time")
        next.finish()
    }
}

/// `InMemoryFileSystem` behind a lock (the hashing thread and the test's both use it), whose hash
/// of one path waits for `letGo()`, unless asked on the test's thread (the loop's), where it
/// would never end: that is noted (`hashedOnTheLoop`) and it goes on.
final class GatedFileSystem: FileSystem, @unchecked Sendable {
    private let lock = NSLock()
    private let disk = InMemoryFileSystem()
    private let gated: String
    private let open = DispatchSemaphore(value: 0)
    private let held = DispatchSemaphore(value: 0)
    private let loopThread = pthread_self()
    private var onTheLoop = false
    private var holding = true

    init(gated: String) {
        self.gated = gated
    }

    var hashedOnTheLoop: Bool { lock.withLock { onTheLoop } }

    func letGo() { open.signal() }

    /// Whether the gated path's hash waits for `letGo()`: false lets a first run go by.
    var holds: Bool {
        get { lock.withLock { holding } }
        set { lock.withLock { holding = newValue } }
    }

    /// Returns once a hash of the gated path (off the loop) waits for `letGo()`.
    func waitUntilHeld() { held.wait() }

    func write(_ path: String, _ contents: String) {
        lock.withLock { disk.write(path, contents) }
    }

    func advance(seconds: Double) {
        lock.withLock { disk.advance(seconds: seconds) }
    }

    func status(of path: String) -> FileStatus? { lock.withLock { disk.status(of: path) } }
    func regularFileStatus(of path: String) -> FileStatus? { lock.withLock { disk.regularFileStatus(of: path) } }
    /// Called at each `files(matching:)`, with the pattern, outside the lock: what happens during a walk.
    var onWalk: (@Sendable (String) -> Void)? {
        get { lock.withLock { walkHook } }
        set { lock.withLock { walkHook = newValue } }
    }
    private var walkHook: (@Sendable (String) -> Void)?

    func files(matching pattern: String) -> [String] {
        onWalk?(pattern)
        return lock.withLock { disk.files(matching: pattern) }
    }
    var nowNanoseconds: Int64 { lock.withLock { disk.nowNanoseconds } }
    func waitForClock(toPass moment: Int64) { lock.withLock { disk.waitForClock(toPass: moment) } }
    func streamedDigest(for status: FileStatus) -> StreamedDigests.Noted? { lock.withLock { disk.streamedDigest(for: status) } }

    func hash(of path: String) -> String? {
        if path == gated, holds {
            if pthread_equal(pthread_self(), loopThread) != 0 {
                lock.withLock { onTheLoop = true }
            } else {
                held.signal()
                open.wait()
                open.signal()  // open from now on
            }
        }
        return lock.withLock { disk.hash(of: path) }
    }
}

/// A `ManualRunLoop` that takes posts from other threads (the hashing's) into an inbox, handed
/// to the loop when the test waits for one (`waitForPost()`); the test's own go to the loop.
final class InboxLoop: EngineLoop, @unchecked Sendable {
    private let manual = ManualRunLoop(now: 1_000_000)
    private let lock = NSLock()
    private var inbox: [@Sendable () -> Void] = []
    private let arrived = DispatchSemaphore(value: 0)
    private let loopThread = pthread_self()

    var now: Int64 { manual.now }

    func post(_ block: @escaping @Sendable () -> Void) {
        guard pthread_equal(pthread_self(), loopThread) == 0 else { return manual.post(block) }
        lock.withLock { inbox.append(block) }
        arrived.signal()
    }

    /// Waits for a post from another thread, and hands it to the loop.
    func waitForPost() {
        arrived.wait()
        for block in lock.withLock({ () -> [@Sendable () -> Void] in
            defer { inbox = [] }; return inbox
        }) { manual.post(block) }
    }

    func nudge() {}
    func makeQueue(name: String, limit: Int) -> any TaskQueue { manual.makeQueue(name: name, limit: limit) }
    func schedule(at deadline: Int64, _ block: @escaping @Sendable () -> Void) -> LoopTimer { manual.schedule(at: deadline, block) }
    func cancel(_ timer: LoopTimer) { manual.cancel(timer) }
    func runPosted() { manual.runPosted() }
}
