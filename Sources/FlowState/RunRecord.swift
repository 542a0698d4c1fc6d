import FlowEvents
import FlowModel
import Foundation

/// One past run, read back from its record file.
///
/// Opening reads the header only; events are streamed from the file on demand, so memory stays
/// bounded by one line whatever the record's length. Damaged lines (a write cut short by a
/// SIGKILL or a power cut, a line edited by hand) are skipped and counted, never fatal.
package struct RunRecord: Sendable {
    package let path: String
    package let header: RecordHeader

    package var run: String { header.run }

    /// Reads the header of the record at `path`.
    package init(path: String) throws(RecordProblem) {
        let reader = try RecordLineReader(path: path)
        guard let line = reader.nextLine() else {
            // A header cut short by a kill is a damaged record of ours; anything else is not ours.
            let ours = String(decoding: reader.cutShortStart, as: UTF8.self).contains(RecordHeader.format)
            throw ours ? RecordProblem.corrupt(path: path, detail: "its header is cut short") : RecordProblem.foreign(path: path)
        }
        self.path = path
        self.header = try RecordHeader.decode(Array(line), path: path)
    }

    /// The plan of the run, each task in plan order with its needs, kind and fingerprint.
    package func plan() -> [RecordHeader.PlanEntry] {
        guard let reader = try? RecordLineReader(path: path), reader.nextLine() != nil, let line = reader.nextLine() else { return [] }
        return RecordHeader.decodePlan(line)
    }

    /// Hands every readable event to `body`, in the order written, and says how many lines
    /// could not be read.
    @discardableResult
    package func forEachEvent(_ body: (RunEvent) throws -> Void) throws -> Int {
        try forEachLine { line in
            guard let event = EventCodec.decode(line) else { return false }
            try body(event)
            return true
        }
    }

    /// Lines after the header; `body` says whether it could read the line. Returns the lines
    /// that could not be read (the cut-short last line included).
    private func forEachLine(_ body: (ArraySlice<UInt8>) throws -> Bool) throws -> Int {
        let reader: RecordLineReader
        do {
            reader = try RecordLineReader(path: path)
        } catch {
            return 1
        }
        _ = reader.nextLine()  // the header
        _ = reader.nextLine()  // the plan
        var unreadable = 0
        while let line = reader.nextLine() {
            if try !body(line) { unreadable += 1 }
        }
        return unreadable + reader.skippedLongLines + (reader.cutShort ? 1 : 0)
    }

    /// How the run went: read from its `workflow.finished` event, or, for a run that never
    /// wrote one (killed), counted from its tasks' final events.
    package func summary() -> RunSummary {
        var summary = RunSummary(endedMilliseconds: header.startedMilliseconds)
        _ = try? forEachLine { line in
            guard let name = Self.eventName(of: line) else { return false }
            // Only final events are decoded: a record holds mostly output lines.
            guard name.hasPrefix("task.s") || name.hasPrefix("task.f") || name.hasPrefix("task.c") || name.hasPrefix("workflow.f")
            else {
                if let time = Self.time(of: line) { summary.endedMilliseconds = max(summary.endedMilliseconds, time) }
                return true
            }
            guard let event = EventCodec.decode(line) else { return false }
            summary.add(event)
            return true
        }
        return summary
    }

    /// Each planned task's final state in this run, and its fingerprint (on a succeeded or skipped
    /// task's final line; older records have none, and their tasks run again): what `--resume`
    /// builds on.
    /// A task the record shows no end for (a killed run) is `unfinished`.
    package func taskResults() -> [TaskID: RecordedTask] {
        checkedTaskResults().tasks
    }

    /// `taskResults()`, and the numbers of the lines found damaged (a line with no event name
    /// where the encoder puts it, a task's final line that does not decode): a record has no
    /// checksum, so these are what a flipped byte shows as. The last line cut short by a kill
    /// is not one. `--resume` takes nothing as done from a record with such lines.
    package func checkedTaskResults() -> (tasks: [TaskID: RecordedTask], damagedLines: [Int]) {
        var results: [TaskID: RecordedTask] = [:]
        for entry in plan() { results[entry.task] = RecordedTask(state: .unfinished, fingerprint: entry.fingerprint) }
        var number = 2  // the header and the plan
        var damaged: [Int] = []
        _ = try? forEachLine { line in
            number += 1
            guard let name = Self.eventName(of: line) else {
                damaged.append(number)
                return false
            }
            guard ["task.succeeded", "task.failed", "task.cancelled", "task.skipped"].contains(name) else { return true }
            guard let event = EventCodec.decode(line), let task = event.task, let state = RecordedTask.State(event.kind),
                let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            else {
                damaged.append(number)
                return false
            }
            results[task] = RecordedTask(state: state, fingerprint: object["fingerprint"] as? String)
            return true
        }
        return (results, damaged)
    }

    /// The `event` value of a line as `EventCodec` writes it, found without parsing the line.
    static func eventName(of line: ArraySlice<UInt8>) -> String? {
        value(after: Array("\"event\":\"".utf8), in: line)
    }

    private static func time(of line: ArraySlice<UInt8>) -> Int64? {
        value(after: Array("\"time\":\"".utf8), in: line).flatMap(EventCodec.milliseconds(of:))
    }

    /// The string value after `key` within the first bytes of `line`, where the encoder puts
    /// `seq`, `time` and `event`.
    private static func value(after key: [UInt8], in line: ArraySlice<UInt8>) -> String? {
        let head = line.prefix(96)
        guard head.count > key.count else { return nil }
        var index = head.startIndex
        while index + key.count <= head.endIndex {
            if head[index..<index + key.count].elementsEqual(key) {
                let start = index + key.count
                guard let end = head[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return String(decoding: head[start..<end], as: UTF8.self)
            }
            index += 1
        }
        return nil
    }
}
