import FlowModel
import Foundation

extension EventCodec {
    /// The event of one line as `encode` wrote it (a line of a run record or an events file),
    /// or nil for a line that is not a whole event of a kind this flowrun knows.
    package static func decode(_ line: ArraySlice<UInt8>) -> RunEvent? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let seq = object["seq"] as? Int, let time = (object["time"] as? String).flatMap(milliseconds(of:)),
            let name = object["event"] as? String, let kind = kind(name, object)
        else { return nil }
        return RunEvent(seq: seq, timeMilliseconds: time, kind: kind)
    }

    private static func kind(_ name: String, _ object: [String: Any]) -> RunEvent.Kind? {
        func string(_ key: String) -> String? { object[key] as? String }
        func int(_ key: String) -> Int? { object[key] as? Int }
        func int64(_ key: String) -> Int64? { (object[key] as? NSNumber)?.int64Value }
        if name == "queue.suspended" { return .queueSuspended }
        if name == "queue.resumed" { return .queueResumed }
        if name == "workflow.started" {
            guard let workflow = string("workflow"), let file = string("file"), let tasks = int("tasks"),
                let concurrency = int("concurrency")
            else { return nil }
            return .workflowStarted(workflow: workflow, file: file, tasks: tasks, concurrency: concurrency)
        }
        if name == "workflow.cleanup" {
            guard let reason = string("reason"), let tasks = object["tasks"] as? [String] else { return nil }
            return .workflowCleanup(reason: reason, tasks: tasks)
        }
        if name == "workflow.finished" {
            guard let workflow = string("workflow"), let status = string("status").flatMap(RunStatus.init(rawValue:)),
                let duration = int64("duration_ms"), let counted = object["counts"] as? [String: Any]
            else { return nil }
            var counts = FinalCounts()
            counts.succeeded = counted["succeeded"] as? Int ?? 0
            counts.failed = counted["failed"] as? Int ?? 0
            counts.allowed = counted["allowed"] as? Int ?? 0
            counts.cancelled = counted["cancelled"] as? Int ?? 0
            counts.skipped = counted["skipped"] as? Int ?? 0
            counts.upToDate = counted["up_to_date"] as? Int ?? 0
            counts.doneBefore = counted["done_before"] as? Int ?? 0
            return .workflowFinished(workflow: workflow, status: status, durationMilliseconds: duration, counts: counts)
        }
        guard let task = string("task") else { return nil }
        switch name {
        case "task.ready":
            return .taskReady(task: task)
        case "task.started":
            guard let attempt = int("attempt"), let kind = string("kind") else { return nil }
            return .taskStarted(task: task, attempt: attempt, kind: kind)
        case "task.output":
            guard let stream = string("stream").flatMap(OutputStream.init(rawValue:)), let line = string("line") else { return nil }
            return .taskOutput(task: task, stream: stream, line: line)
        case "task.progress":
            guard let done = int64("done"), let unit = string("unit").flatMap(ProgressUnit.init(rawValue:)) else { return nil }
            return .taskProgress(task: task, done: done, total: int64("total"), unit: unit)
        case "task.retrying":
            guard let attempt = int("attempt"), let delay = int64("delay_ms"), let reason = string("reason") else { return nil }
            // A record written before `exit_code` was kept has none: read as null.
            return .taskRetrying(task: task, attempt: attempt, delayMilliseconds: delay, reason: reason, exitCode: int("exit_code"))
        case "task.succeeded":
            guard let attempts = int("attempts"), let duration = int64("duration_ms") else { return nil }
            return .taskSucceeded(task: task, attempts: attempts, durationMilliseconds: duration)
        case "task.failed":
            guard let attempts = int("attempts"), let duration = int64("duration_ms"), let reason = string("reason") else { return nil }
            return .taskFailed(
                task: task, attempts: attempts, durationMilliseconds: duration, reason: reason, exitCode: int("exit_code"),
                allowed: object["allowed"] as? Bool ?? false)
        case "task.cancelled":
            return string("reason").map { .taskCancelled(task: task, reason: $0) }
        case "task.skipped":
            return string("reason").map { .taskSkipped(task: task, reason: $0, run: string("run")) }
        default:
            return nil
        }
    }

    /// Milliseconds since 1970 of an RFC 3339 UTC time as the event stream writes it,
    /// `2026-11-23T09:30:01.123Z`.
    package static func milliseconds(of text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes[16] == 0x3A, bytes[19] == 0x2E, bytes[23] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), let millisecond = number(20..<23),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
    }

    /// Howard Hinnant's `days_from_civil`, the inverse of what `EventTime` formats with.
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
