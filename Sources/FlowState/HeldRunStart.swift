import FlowModel

/// The start of a run that a record holds back until a task runs (`RunRecorder`): the
/// `workflow.started` event, then tasks ready and up to date, each in 24 bytes rather than a
/// `RunEvent` of over a hundred (a task ready and found up to date in the same millisecond,
/// the two events a no-op has of each task, in one), so that a no-op rerun of 20,000 tasks
/// holds under 0.5 MB of events where it held 11 MB.
///
/// Held events follow each other in the stream, so their `seq` is implied by their place, and
/// their time is kept as milliseconds after the first one's. An event that does not fit (not
/// one that is held, not the next `seq`, or a time beyond 24 days of the first) is refused:
/// the recorder then writes what it held and holds no more, so the record is the same either way.
struct HeldRunStart {
    /// `workflow.started`, when it was the first event held.
    private(set) var started: RunEvent?
    private var first: (seq: Int, timeMilliseconds: Int64)?
    private var tasks: [HeldTask] = []
    /// How many events `tasks` holds.
    private var taskEvents = 0

    /// `task.ready`, `task.skipped` as up to date, or the one then the other.
    private struct HeldTask {
        var task: TaskID
        var millisecondsAfterFirst: Int32
        var events: Events
    }

    private enum Events: UInt8 {
        case ready, upToDate, readyThenUpToDate
    }

    /// - Parameter tasks: how many tasks the run has: room is made for one entry each.
    init(tasks count: Int = 0) {
        tasks.reserveCapacity(count)
    }

    /// How many events are held.
    var count: Int { taskEvents + (started == nil ? 0 : 1) }

    /// Holds `event` and says true, or says false and holds nothing more (see the type).
    mutating func hold(_ event: RunEvent) -> Bool {
        guard let first else {
            switch event.kind {
            case .workflowStarted: started = event
            case .taskReady, .taskSkipped: guard holdTask(event, first: (event.seq, event.timeMilliseconds)) else { return false }
            default: return false
            }
            self.first = (event.seq, event.timeMilliseconds)
            return true
        }
        guard event.seq == first.seq + count else { return false }
        return holdTask(event, first: first)
    }

    private mutating func holdTask(_ event: RunEvent, first: (seq: Int, timeMilliseconds: Int64)) -> Bool {
        guard let after = Int32(exactly: event.timeMilliseconds - first.timeMilliseconds) else { return false }
        switch event.kind {
        case .taskReady(let task):
            tasks.append(HeldTask(task: task, millisecondsAfterFirst: after, events: .ready))
        case .taskSkipped(let task, let reason, nil) where reason == SkipReason.upToDate:
            if let last = tasks.last, last.events == .ready, last.millisecondsAfterFirst == after, last.task == task {
                tasks[tasks.count - 1].events = .readyThenUpToDate
            } else {
                tasks.append(HeldTask(task: task, millisecondsAfterFirst: after, events: .upToDate))
            }
        default:
            return false
        }
        taskEvents += 1
        return true
    }

    /// Calls `body` with each event held, as it was received, in order.
    func forEach(_ body: (RunEvent) -> Void) {
        guard let first else { return }
        if let started { body(started) }
        var seq = first.seq + (started == nil ? 0 : 1)
        for held in tasks {
            let time = first.timeMilliseconds + Int64(held.millisecondsAfterFirst)
            if held.events != .upToDate {
                body(RunEvent(seq: seq, timeMilliseconds: time, kind: .taskReady(task: held.task)))
                seq += 1
            }
            if held.events != .ready {
                body(RunEvent(seq: seq, timeMilliseconds: time, kind: .taskSkipped(task: held.task, reason: SkipReason.upToDate)))
                seq += 1
            }
        }
    }
}
