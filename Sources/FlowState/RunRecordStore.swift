import Crypto
import FlowEvents
import FlowFiles
import FlowModel
import Foundation

/// The run records in a state folder: `runs/NAME-KEY/RUN.jsonl`, one folder per workflow file,
/// keyed by its absolute path (several workflow files may share a state folder).
///
/// Run ids are the start time in UTC, `20261125-030512-123`, so that names sort oldest first and
/// a user can tell them apart at a glance; the lock makes them unique within a folder.
package struct RunRecordStore: Sendable {
    package let folder: StateFolder

    package init(folder: StateFolder) {
        self.folder = folder
    }

    package var runsPath: String { folder.file("runs") }

    /// The folder of the records of the workflow file at the absolute path `workflowFile`.
    package func recordsPath(forWorkflow workflowFile: String) -> String {
        let key = SHA256.hash(data: Data(workflowFile.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        let name = workflowFile.pathName
        return (runsPath as NSString).appendingPathComponent("\(name)-\(key)")
    }

    /// A new run id from `milliseconds` since 1970, and the path of its record, which does not
    /// exist yet. Makes the folders as needed.
    package func newRecord(forWorkflow workflowFile: String, startedMilliseconds: Int64) throws -> (run: String, path: String) {
        try folder.create()
        let records = recordsPath(forWorkflow: workflowFile)
        try Folders.make(records, access: .owner)
        let base = Self.runID(milliseconds: startedMilliseconds)
        var run = base
        var number = 1
        while runExists(run) {
            number += 1
            run = "\(base)-\(number)"
        }
        return (run, (records as NSString).appendingPathComponent(run + ".jsonl"))
    }

    private func runExists(_ run: String) -> Bool {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: runsPath)) ?? []
        return folders.contains { FileManager.default.fileExists(atPath: "\(runsPath)/\($0)/\(run).jsonl") }
    }

    /// `YYYYMMDD-HHMMSS-mmm` in UTC: the digits of the event stream's time of the start
    /// (`EventTime`, integer arithmetic), where Foundation's calendar and `String(format:)` took
    /// ~2.9 M instructions, 4% of a one-task run's. Foundation's for a start before
    /// 1970 or after 9999 (a clock set far off), as before.
    static func runID(milliseconds: Int64) -> String {
        guard milliseconds >= 0, milliseconds <= EventTime.range.upperBound else { return calendarRunID(milliseconds: milliseconds) }
        // 2025-11-25T03:05:12.123Z
        var time: [UInt8] = []
        time.reserveCapacity(24)
        EventTime.append(milliseconds: milliseconds, to: &time)
        let kept = [0, 1, 2, 3, 5, 6, 8, 9, -1, 11, 12, 14, 15, 17, 18, -1, 20, 21, 22]
        return String(decoding: kept.map { $0 < 0 ? UInt8(ascii: "-") : time[$0] }, as: UTF8.self)
    }

    /// The id of a start before 1970 or after 9999, through Foundation's calendar.
    static func calendarRunID(milliseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return String(format: "%04d", parts.year ?? 0) + two(parts.month) + two(parts.day) + "-" + two(parts.hour) + two(parts.minute)
            + two(parts.second) + "-" + String(format: "%03d", Int(milliseconds % 1000))
    }

    /// The record files of one workflow, or of every workflow of the folder, oldest first.
    package func recordPaths(forWorkflow workflowFile: String?) -> [String] {
        let folders: [String]
        if let workflowFile {
            folders = [recordsPath(forWorkflow: workflowFile)]
        } else {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runsPath)) ?? []
            folders = names.map { (runsPath as NSString).appendingPathComponent($0) }
        }
        var paths: [(run: String, path: String)] = []
        for folder in folders {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".jsonl") {
                paths.append((String(name.dropLast(6)), (folder as NSString).appendingPathComponent(name)))
            }
        }
        return paths.sorted { $0.run < $1.run }.map(\.path)
    }

    /// The records that can be read, newest first, and the problems of those that cannot.
    package func records(forWorkflow workflowFile: String?) -> (records: [RunRecord], problems: [RecordProblem]) {
        var records: [RunRecord] = []
        var problems: [RecordProblem] = []
        for path in recordPaths(forWorkflow: workflowFile).reversed() {
            do throws(RecordProblem) {
                let record = try RunRecord(path: path)
                // A copied or renamed folder: the file named inside decides.
                if let workflowFile, record.header.file != workflowFile { continue }
                records.append(record)
            } catch {
                problems.append(error)
            }
        }
        return (records, problems)
    }

    /// Removes the oldest records of the workflow past the newest `keep`. Records this flowrun
    /// cannot read (a newer flowrun's, a foreign file) are left alone; returns what could not be
    /// removed.
    @discardableResult
    package func prune(forWorkflow workflowFile: String, keep: Int) -> [String] {
        let paths = recordPaths(forWorkflow: workflowFile)
        // Nothing to remove: no header needs reading (a run's start-up stays flat as records pile up).
        guard paths.count > max(keep, 0) else { return [] }
        var readable: [String] = []
        for path in paths {
            if let record = try? RunRecord(path: path), record.header.file == workflowFile { readable.append(path) }
        }
        var failures: [String] = []
        for path in readable.dropLast(max(keep, 0)) {
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                failures.append("cannot remove the old run record \(path): \(error.localizedDescription)")
            }
        }
        return failures
    }
}
