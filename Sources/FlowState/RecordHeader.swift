import FlowModel
import Foundation

/// The first line of a run record: what ran, from which file, and the plan.
///
/// A record is a JSON Lines file: this header, the plan on a line of its own (long for a large
/// workflow, so that listing runs reads only the short first line), then the run's events as
/// `--events jsonl` writes them. `version` is the format's version: a reader refuses a record
/// newer than it knows, rather than misread it.
package struct RecordHeader: Sendable, Equatable {
    /// What the `format` key holds in every record: a file without it is not ours.
    package static let format = "flowrun-run-record"
    /// The record format this flowrun writes and the newest it reads.
    package static let currentVersion = 1

    package var version = Self.currentVersion
    package var run: String
    /// The workflow's name, as in `workflow.started`.
    package var workflow: String
    /// The workflow file's absolute path.
    package var file: String
    /// `sha256:HEX` of the file's contents, or nil when it is not a regular file (a pipe).
    package var digest: String?
    /// Milliseconds since 1970.
    package var startedMilliseconds: Int64
    /// The most bytes of each task's output that the record keeps.
    package var outputCap: Int
    /// Empty in a header read back: `RunRecord.plan()` reads it.
    package var plan: [PlanEntry]
    /// The number of tasks in the plan.
    package var taskCount: Int

    /// One planned task, in the plan's order.
    package struct PlanEntry: Sendable, Equatable {
        package var task: TaskID
        package var needs: [TaskID]
        package var kind: String
        /// The task's fingerprint (its definition and inputs) when it ran, for `--resume` and
        /// the up-to-date check; nil until something computes it.
        package var fingerprint: String?
        /// The task's queue (nil for the default one) and priority, for `flowrun report`; a
        /// record written before they were kept has neither, and reads back as nil for both.
        package var queue: String?
        package var priority: String?

        package init(
            task: TaskID, needs: [TaskID], kind: String, fingerprint: String? = nil, queue: String? = nil, priority: String? = nil
        ) {
            self.task = task
            self.needs = needs
            self.kind = kind
            self.fingerprint = fingerprint
            self.queue = queue
            self.priority = priority
        }
    }

    package init(
        run: String, workflow: String, file: String, digest: String?, startedMilliseconds: Int64, outputCap: Int, plan: [PlanEntry]
    ) {
        self.run = run
        self.workflow = workflow
        self.file = file
        self.digest = digest
        self.startedMilliseconds = startedMilliseconds
        self.outputCap = outputCap
        self.plan = plan
        self.taskCount = plan.count
    }

    /// The header's line and the plan's line, newlines included. Both are written by hand, as
    /// the event stream is: the plan has an entry per task, and `JSONSerialization` took ~6.7 M
    /// instructions for the header alone, a tenth of a one-task run's own work.
    package func encoded() throws -> [UInt8] {
        try encodedHeader() + encodedPlan()
    }

    /// The header's line alone, newline included: the bytes `JSONSerialization` gives with
    /// `.sortedKeys` and `.withoutEscapingSlashes` (`RecordHeaderTests` compares the two).
    package func encodedHeader() throws -> [UInt8] {
        var bytes = Array("{\"digest\":".utf8)
        if let digest { Self.appendSerializedString(digest, to: &bytes) } else { bytes += "null".utf8 }
        bytes += ",\"file\":".utf8
        Self.appendSerializedString(file, to: &bytes)
        bytes += ",\"format\":".utf8
        Self.appendSerializedString(Self.format, to: &bytes)
        bytes += ",\"output_cap\":\(outputCap),\"run\":".utf8
        Self.appendSerializedString(run, to: &bytes)
        bytes += ",\"started_ms\":\(startedMilliseconds),\"tasks\":\(taskCount),\"version\":\(version),\"workflow\":".utf8
        Self.appendSerializedString(workflow, to: &bytes)
        bytes += "}\n".utf8
        return bytes
    }

    /// Appends `text` as `JSONSerialization` writes a string (`.withoutEscapingSlashes`): `"` and
    /// `\` escaped, the C0 controls as `\b`, `\f`, `\n`, `\r`, `\t` or `\u00xx` (lower-case hex),
    /// anything else as it is. The header's file and names were written so before.
    static func appendSerializedString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0x08: bytes += "\\b".utf8
            case 0x0C: bytes += "\\f".utf8
            case 0x0A: bytes += "\\n".utf8
            case 0x0D: bytes += "\\r".utf8
            case 0x09: bytes += "\\t".utf8
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += "\\u00".utf8
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The plan line of a record that keeps no task's events (a run in which no task ran: each
    /// was up to date): no entry, so `--resume` of that run keeps what the up-to-date check
    /// keeps, and nothing on the run's word.
    package static let noTasksKeptPlan = Array("{\"plan\":[],\"tasks_kept\":false}\n".utf8)

    /// The plan's line, newline included.
    package func encodedPlan() -> [UInt8] {
        Self.encodedPlan(plan)
    }

    /// The plan line of `plan`'s entries, newline included.
    package static func encodedPlan(_ plan: [PlanEntry]) -> [UInt8] {
        var bytes = Array("{\"plan\":[".utf8)
        for (index, entry) in plan.enumerated() {
            bytes += (index == 0 ? "{\"task\":" : ",{\"task\":").utf8
            Self.appendString(entry.task, to: &bytes)
            bytes += ",\"needs\":[".utf8
            for (position, need) in entry.needs.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.appendString(need, to: &bytes)
            }
            bytes += "],\"kind\":".utf8
            Self.appendString(entry.kind, to: &bytes)
            bytes += ",\"fingerprint\":".utf8
            if let fingerprint = entry.fingerprint { Self.appendString(fingerprint, to: &bytes) } else { bytes += "null".utf8 }
            // Optional keys, added after version 1 first shipped: older readers ignore them.
            if let queue = entry.queue {
                bytes += ",\"queue\":".utf8
                Self.appendString(queue, to: &bytes)
            }
            if let priority = entry.priority {
                bytes += ",\"priority\":".utf8
                Self.appendString(priority, to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes += "]}\n".utf8
        return bytes
    }

    /// Appends `text` as a JSON string: `"`, `\` and the C0 controls escaped.
    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most texts (task ids, kinds) need no escape: copied at once, not byte by byte, and
        // looked at in the string's own storage (its `utf8` view costs a few times more a byte).
        var text = text
        let copied = text.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes += String(format: "\\u%04x", byte).utf8
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The plan of a record's second line; empty if the line is damaged.
    package static func decodePlan(_ line: ArraySlice<UInt8>) -> [PlanEntry] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let entries = object["plan"] as? [[String: Any]]
        else { return [] }
        return entries.compactMap { entry -> PlanEntry? in
            guard let task = entry["task"] as? String else { return nil }
            return PlanEntry(
                task: task, needs: entry["needs"] as? [String] ?? [], kind: entry["kind"] as? String ?? "",
                fingerprint: entry["fingerprint"] as? String, queue: entry["queue"] as? String, priority: entry["priority"] as? String)
        }
    }

    /// Reads a header line, without the plan (see `decodePlan`); throws `RecordProblem` for one that is not a flowrun record, or is
    /// newer than this flowrun.
    package static func decode(_ line: [UInt8], path: String) throws(RecordProblem) -> RecordHeader {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            object["format"] as? String == format
        else { throw .foreign(path: path) }
        guard let version = object["version"] as? Int, version >= 1 else { throw .corrupt(path: path, detail: "no valid version") }
        guard version <= currentVersion else { throw .newer(path: path, version: version) }
        guard let run = object["run"] as? String, let file = object["file"] as? String,
            let started = (object["started_ms"] as? NSNumber)?.int64Value
        else { throw .corrupt(path: path, detail: "its header lacks run, file or started_ms") }
        var header = RecordHeader(
            run: run, workflow: object["workflow"] as? String ?? "", file: file, digest: object["digest"] as? String,
            startedMilliseconds: started, outputCap: object["output_cap"] as? Int ?? 0, plan: [])
        header.taskCount = object["tasks"] as? Int ?? 0
        header.version = version
        return header
    }
}
