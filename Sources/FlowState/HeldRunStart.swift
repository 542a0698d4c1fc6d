import FlowModel

/// The start of a run that a record holds back until a task runs (`RunRecorder`): the
/// `workflow.started` event, then tasks ready and up to date, each in 24 bytes rather than a
/// `RunEvent` of over a hundred, so that a no-op rerun of 20,000 tasks holds under 1 MB of
/// events where it held 11 MB.
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

    /// `task.ready`, or `task.skipped` as up to date.
    private struct HeldTask {
        var task: TaskID
        var millisecondsAfterFirst: Int32
        var upToDate: Bool
    }

    /// How many events are held.
    var count: Int { tasks.count + (started == nil ? 0 : 1) }

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
            tasks.append(HeldTask(task: task, millisecondsAfterFirst: after, upToDate: false))
        case .taskSkipped(let task, let reason, nil) where reason == SkipReason.upToDate:
            tasks.append(HeldTask(task: task, millisecondsAfterFirst: after, upToDate: true))
        default:
            return false
        }
        return true
    }

    /// Calls `body` with each event held, as it was received, in order.
    func forEach(_ body: (RunEvent) -> Void) {
        guard let first else { return }
        if let started { body(started) }
        let firstTaskSeq = first.seq + (started == nil ? 0 : 1)
        for (offset, held) in tasks.enumerated() {
            let kind: RunEvent.Kind =
                held.upToDate ? .taskSkipped(task: held.task, reason: SkipReason.upToDate) : .taskReady(task: held.task)
            body(RunEvent(seq: firstTaskSeq + offset, timeMilliseconds: first.timeMilliseconds + Int64(held.millisecondsAfterFirst), kind: kind))
        }
    }
}
