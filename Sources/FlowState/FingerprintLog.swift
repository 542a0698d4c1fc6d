import Crypto
import FlowFiles
import Foundation

/// What the up-to-date check remembers of one workflow file: each task's fingerprint at its last
/// success, and the files it has hashed. One file in the state folder per workflow, named from
/// the workflow's absolute path (which its first line repeats).
///
/// Like `.ninja_log`, the file is a log of tab-separated lines, the last line about a task or a
/// file winning: each success is appended as it happens, so a run killed at any moment keeps
/// what had finished, and a 20,000-task run writes each task once rather than the whole file
/// each time. The end of a run rewrites it compacted (a temporary file, then rename), so it
/// stays the size of the workflow. A torn last line (a kill mid-write) is ignored.
package final class FingerprintLog: @unchecked Sendable {
    package static let version = 1
    static let magic = "flowrun-fingerprints"

    package struct TaskRecord: Sendable, Equatable {
        package var fingerprint: TaskFingerprint
        /// The SHA-256 over the task's output files and their digests after it succeeded.
        package var outputs: String

        package init(fingerprint: TaskFingerprint, outputs: String) {
            self.fingerprint = fingerprint
            self.outputs = outputs
        }
    }

    package let path: String
    package let workflowFile: String
    private let folder: StateFolder
    package private(set) var tasks: [String: TaskRecord] = [:]
    package private(set) var files: [String: FileRecord] = [:]
    /// What was wrong with the file as found, when it was ignored (another program's file, or garbage).
    package private(set) var ignoredProblem: String?
    private var descriptor: Int32 = -1
    private var appended = 0

    /// The log of `workflowFile` (absolute) in `folder`, read if it exists.
    ///
    /// - Throws: `FingerprintLogError` when the file was written by a newer flowrun, or cannot be read.
    package init(folder: StateFolder, workflowFile: String) throws(FingerprintLogError) {
        self.workflowFile = workflowFile
        self.folder = folder
        let key = FileRecord.hex(SHA256.hash(data: Data(workflowFile.utf8))).prefix(16)
        path = folder.file("fingerprints-\(key).log")
        try load()
    }

    private func load() throws(FingerprintLogError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FingerprintLogError("cannot read \(path)")
        }
        guard !data.isEmpty else { return }  // made, then killed before its first line
        var header: [String]?
        var readable = true
        try Self.forEachLine(of: data) { (fields) throws(FingerprintLogError) in
            guard readable else { return }
            guard header == nil else { return apply(fields) }
            header = fields
            guard fields.count == 3, fields[0] == Self.magic, let version = Int(fields[1]) else {
                ignoredProblem = "\(path) is not a flowrun fingerprint log; it is ignored and will be replaced"
                readable = false
                return
            }
            guard version <= Self.version else {
                throw FingerprintLogError(
                    "\(path) was written by a newer flowrun (state format \(version); this one reads \(Self.version)): upgrade flowrun, or delete the file to start afresh"
                )
            }
            guard fields[2] == workflowFile else {
                ignoredProblem = "\(path) belongs to \(fields[2]); it is ignored and will be replaced"
                readable = false
                return
            }
        }
        if header == nil { ignoredProblem = "\(path) is not a flowrun fingerprint log; it is ignored and will be replaced" }
    }

    /// Calls `body` with the tab-separated fields of each whole line, cut from the bytes
    /// directly (a generic split of Data, then of each line, took most of a 20,000-task no-op
    /// run). A line is whole only once its newline is written: a torn last line is left out.
    private static func forEachLine(
        of data: Data, _ body: ([String]) throws(FingerprintLogError) -> Void
    ) throws(FingerprintLogError) {
        // Read in place: a copy of a 20,000-task log is 13 MB more at the peak.
        var failure: FingerprintLogError?
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var fields: [String] = []
            var fieldStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") else { continue }
                fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[fieldStart..<index]), as: UTF8.self))
                fieldStart = index + 1
                if byte == UInt8(ascii: "\n") {
                    do throws(FingerprintLogError) {
                        try body(fields)
                    } catch {
                        failure = error
                        return
                    }
                    fields.removeAll(keepingCapacity: true)
                }
            }
        }
        if let failure { throw failure }
    }

    /// Applies one line; a line it cannot read is skipped (a newer flowrun's line, or damage).
    private func apply(_ fields: [String]) {
        switch fields.first {
        case "F":
            guard let file = FileRecord(logFields: fields) else { return }
            files[fields[7]] = file
        case "T" where fields.count == 8:
            let fingerprint = TaskFingerprint(
                definition: fields[2], environment: fields[3], inputs: fields[4], needs: fields[5])
            // The whole value (fields[1]) is not hashed again to check the line: a damaged part
            // differs from the task's now, which then runs (a 20,000-task log's load took 20,000 SHA-256).
            tasks[fields[7]] = TaskRecord(fingerprint: fingerprint, outputs: fields[6])
        case "D" where fields.count == 2:
            tasks[fields[1]] = nil
        default:
            return
        }
    }

    // MARK: Changes, appended as they happen

    /// Remembers a task's success, with the files it hashed on the way.
    package func recordSuccess(
        of task: String, _ record: TaskRecord, files changed: [(path: String, record: FileRecord)]
    ) throws(FingerprintLogError) {
        var text = ""
        for (path, file) in changed where files[path] != file {
            files[path] = file
            guard Self.isWritable(path) else { continue }
            text += file.logLine(path: path) + "\n"
        }
        tasks[task] = record
        let fingerprint = record.fingerprint
        text +=
            "T\t\(fingerprint.value)\t\(fingerprint.definition)\t\(fingerprint.environment)\t\(fingerprint.inputs)\t\(fingerprint.needs)\t\(record.outputs)\t\(task)\n"
        try append(text)
    }

    /// Forgets a task's success: it is about to run again, and a run that fails or is killed
    /// midway must not leave it up to date.
    package func forget(_ task: String) throws(FingerprintLogError) {
        guard tasks.removeValue(forKey: task) != nil else { return }
        try append("D\t\(task)\n")
    }

    /// Remembers a file hashed again with the same contents (touched), so it is not hashed next time.
    package func noteFile(_ path: String, _ record: FileRecord) {
        files[path] = record
        appended += 1  // kept at the compaction
    }

    private static func isWritable(_ path: String) -> Bool {
        !path.utf8.contains(UInt8(ascii: "\t")) && !path.utf8.contains(UInt8(ascii: "\n"))
    }

    private func append(_ text: String) throws(FingerprintLogError) {
        if descriptor < 0 {
            try makeFolder()
            let isNew = (FileRecord.status(of: path)?.size ?? 0) == 0 || ignoredProblem != nil
            // O_NOFOLLOW: a symlink planted in the state folder is not written through.
            descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | (isNew ? O_TRUNC : 0), 0o600)
            guard descriptor >= 0 else { throw FingerprintLogError("cannot write \(path): \(String(cString: strerror(errno)))") }
            if isNew {
                ignoredProblem = nil
                try write(header)
            }
        }
        appended += 1
        try write(text)
    }

    /// Made on the first write, so that a run with nothing to remember leaves nothing.
    private func makeFolder() throws(FingerprintLogError) {
        do {
            try folder.create()
        } catch {
            throw FingerprintLogError("cannot make the state folder \(folder.path): \(error.localizedDescription)")
        }
    }

    private var header: String { "\(Self.magic)\t\(Self.version)\t\(workflowFile)\n" }

    private func write(_ text: String) throws(FingerprintLogError) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FingerprintLogError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            bytes = bytes.dropFirst(count)
        }
    }

    // MARK: The end of a run

    /// How much of the compacted log is held before it is written.
    static let compactionPiece = 64 * 1024

    /// Rewrites the log with one line per task and file still known, if anything changed.
    package func compact() throws(FingerprintLogError) {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        guard appended > 0 else { return }
        try makeFolder()
        do throws(FileError) {
            // A random name opened with O_EXCL|O_NOFOLLOW: nothing planted in the folder is
            // written through. Fsynced before the rename: a crash leaves the old log or the new.
            let compacted = try AtomicFile(destination: path, access: .owner)
            // Written a piece at a time: the whole log of a large workflow is tens of megabytes.
            var text = header
            func flush(atLeast bytes: Int) throws(FileError) {
                guard text.utf8.count >= bytes else { return }
                try compacted.write(text)
                text.removeAll(keepingCapacity: true)
            }
            for (path, file) in files.sorted(by: { $0.key < $1.key }) where Self.isWritable(path) {
                text += file.logLine(path: path) + "\n"
                try flush(atLeast: Self.compactionPiece)
            }
            for (task, record) in tasks.sorted(by: { $0.key < $1.key }) {
                let fingerprint = record.fingerprint
                text +=
                    "T\t\(fingerprint.value)\t\(fingerprint.definition)\t\(fingerprint.environment)\t\(fingerprint.inputs)\t\(fingerprint.needs)\t\(record.outputs)\t\(task)\n"
                try flush(atLeast: Self.compactionPiece)
            }
            try flush(atLeast: 0)
            try compacted.commit()
        } catch {
            throw FingerprintLogError(error.description)
        }
        appended = 0
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}

package struct FingerprintLogError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
