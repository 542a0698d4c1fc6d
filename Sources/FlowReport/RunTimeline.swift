import FlowModel

/// A run as the report draws it: every planned task with when it became ready, each attempt's
/// start and end, its result, the concurrency slot it ran on, and whether it is on the critical
/// path. Times are milliseconds since 1970, as in the events.
///
/// Built from events by `TimelineBuilder` (from a record, or live during a run); the HTML
/// timeline, the Chrome trace and the job summary are pure functions of it.
package struct RunTimeline: Sendable {
    package var workflow: String
    package var run: String?
    package var file: String
    package var startedMilliseconds: Int64
    /// The last event's time (the run's end, or where the record of a killed run stops); for a
    /// run still going, when the report was drawn (its duration so far).
    package var endedMilliseconds: Int64
    package var result: Result
    package var counts: FinalCounts
    package var concurrency: Int?
    package var tasks: [Task]
    /// How many slots the sweep needed: the run's most tasks running at once.
    package var slotCount: Int
    /// Indices into `tasks`, first to last.
    package var criticalPath: [Int]

    /// How the run ended: `interrupted` when its record has no end (flowrun was killed), `running`
    /// when it has none yet because a flowrun is still writing it.
    package enum Result: String, Sendable {
        case succeeded, failed, cancelled, interrupted, running
    }

    package var durationMilliseconds: Int64 { endedMilliseconds - startedMilliseconds }

    /// One planned task.
    package struct Task: Sendable, Equatable {
        package var id: TaskID
        /// Indices into the timeline's `tasks`.
        package var needs: [Int]
        package var kind: String
        package var queue: String?
        package var priority: String?
        /// When its needs were met and it waited for a slot.
        package var readyMilliseconds: Int64?
        package var attempts: [Attempt] = []
        /// When it ended (its final event), or nil if the record shows no end.
        package var endMilliseconds: Int64?
        package var result: TaskResult = .notReached
        package var reason: String?
        package var exitCode: Int?
        /// The concurrency slot its attempts ran on; nil for a task that never started.
        package var slot: Int?
        package var critical = false
        /// Its last output lines (see `TimelineBuilder.tailLines`), a marker where an attempt began.
        package var tail: [String] = []
        /// Output lines it printed that the tail does not hold (all of them when the run's tails
        /// outgrew `TimelineBuilder.keptTailBytes`).
        package var droppedLines = 0

        package init(id: TaskID, needs: [Int], kind: String, queue: String?, priority: String?) {
            self.id = id
            self.needs = needs
            self.kind = kind
            self.queue = queue
            self.priority = priority
        }

        /// From its first attempt's start to its last one's end: what its slot was held for.
        package var busy: (start: Int64, end: Int64)? {
            guard let first = attempts.first, let last = attempts.last else { return nil }
            return (first.startMilliseconds, last.endMilliseconds)
        }
    }

    /// One attempt of a task: a retried task has several.
    package struct Attempt: Sendable, Equatable {
        package var number: Int
        package var startMilliseconds: Int64
        package var endMilliseconds: Int64
        /// How the attempt ended: `retried` for all but the last of a retried task.
        package var result: TaskResult
        package var reason: String?
        /// The exit status of a shell task's process in this attempt; nil for other kinds, for
        /// one killed by a signal, or in a record written before retries kept it.
        package var exitCode: Int?

        package init(
            number: Int, startMilliseconds: Int64, endMilliseconds: Int64, result: TaskResult, reason: String? = nil, exitCode: Int? = nil
        ) {
            self.number = number
            self.startMilliseconds = startMilliseconds
            self.endMilliseconds = endMilliseconds
            self.result = result
            self.reason = reason
            self.exitCode = exitCode
        }
    }

    /// What became of a task, or of one attempt.
    package enum TaskResult: String, Sendable, CaseIterable {
        case succeeded, failed
        /// A failure of a `continue_on_error` task, which does not fail the run.
        case allowed
        case cancelled
        /// An attempt that failed and was tried again.
        case retried
        case skipped
        case upToDate = "up-to-date"
        case doneBefore = "done-before"
        /// Started, but the record shows no end (flowrun was killed).
        case unfinished
        /// Started, and not ended yet: the run is still going.
        case running
        /// Never started: the record ends before it was ready or before it got a slot.
        case notReached = "not-reached"

        /// Whether the task failed the run (an allowed failure does not).
        package var isFailure: Bool { self == .failed }
    }
}
