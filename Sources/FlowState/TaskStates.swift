import Crypto
import FlowFiles
import Foundation
import Glibc

/// What the up-to-date check remembers of one workflow file: for each task, what it left at its
/// last success (`TaskState`: its fingerprint, its outputs' digest, and the stamp and digest of
/// each file behind them). One binary file in the state folder per workflow, named from the
/// workflow's absolute path, mapped into memory and read in place: a run of up-to-date tasks
/// compares integers and raw digests there, and makes no text or dictionary of it.
///
/// `tasks-KEY.bin`: the magic line, the format version, the workflow's path, the task count,
/// each task's bytes (`TaskStateBytes`) in the order of the plan that wrote it (so that task i of
/// the plan is looked for at i first, and by its id only when the plan changed), then the
/// CRC-32 of all before it (`StateChecksum`). A file of another version (1 and 2 kept the
/// SHA-256 of each file, 3 its XXH3-128), cut short or damaged is ignored, said so (its tasks
/// run again), and written anew; it is replaced only whole (a temporary file, fsynced, then
/// renamed), at the end of a run that changed something.
///
/// `tasks-KEY.journal`: each success appended as it happens, as `.ninja_log` is, so a run killed
/// at any moment keeps what had finished; each entry carries its own SHA-256. A journal of
/// another version is ignored with the whole state, as a damaged one. A torn last entry
/// (a kill during its write) ends the journal. A damaged one (its bytes all there, its SHA-256
/// not theirs; or its length past the end, its payload there with its SHA-256) is said
/// (`ignoredProblem`, naming the entry), and the whole state is ignored: the entry may have
/// been the forgetting of any task, whose older success must not count.
/// The end of a run folds the journal into the `.bin` and removes it.
/// Replaying it again over the file it was folded into (a crash between the two) changes nothing.
package final class TaskStates: @unchecked Sendable {
    /// 3: each file's digest is its XXH3-128 (16 bytes), where 2 kept its SHA-256 (32), so a
    /// state of 2 or 1 is not read: its tasks run once.
    package static let version: UInt32 = 3
    /// The journal's version, 2 since files' digests are XXH3-128: its entries still carry
    /// their own SHA-256 (few, and small).
    static let journalVersion: UInt32 = 2
    static let magic = Array("flowrun-tasks\n".utf8)
    static let journalMagic = Array("flowrun-tasks-journal\n".utf8)
    /// How much of the new file is held before it is written.
    static let writePiece = 64 * 1024
    /// How much of the mapped file is read before the pages read are let go of (`releasePages`).
    static let releasePiece = 1 << 20

    package let path: String
    package let journalPath: String
    package let workflowFile: String
    private let folder: StateFolder
    /// The start of the workflow path's SHA-256, which names the files.
    private let key: String
    /// What was wrong with a file found, when it was ignored.
    package private(set) var ignoredProblem: String?

    /// The `.bin` file, mapped; each task's bytes in it.
    private var mapped: UnsafeRawBufferPointer?
    private var entries: [Range<Int>] = []
    /// `entries`' indices by id, made the first time a task is not at its plan index.
    private var indexesByID: [String: Int]?
    /// The journal's bytes, and its last word on each task it names (nil: forgotten).
    private var journalBytes: UnsafeMutableRawBufferPointer?
    private var journaled: [String: Range<Int>?] = [:]
    private var journalDescriptor: Int32 = -1
    private var journalIsUsable = false
    /// Where the journal's last whole entry ends, when torn or damaged bytes follow it: they are
    /// cut off before this run appends, as ninja cuts its deps log, or what it appends would lie
    /// behind them, never read.
    private var journalWholeLength: Int?
    /// Where an append that failed began, until the journal is cut back there.
    private var failedAppendStart: off_t?
    /// What this run changed, by id, as the file keeps each task (`TaskStateBytes`; nil:
    /// forgotten), written at `compact`: encoded once, when the journal took it, not again there.
    private var changes: [String: [UInt8]?] = [:]

    /// The state of `workflowFile` (absolute) in `folder`, read if it is there.
    package init(folder: StateFolder, workflowFile: String) {
        self.workflowFile = workflowFile
        self.folder = folder
        key = String(FileRecord.hex(SHA256.hash(data: Data(workflowFile.utf8))).prefix(16))
        path = folder.file("tasks-\(key).bin")
        journalPath = folder.file("tasks-\(key).journal")
        if let problem = mapFile() {
            ignoredProblem = "\(path) \(problem); it is ignored (its tasks run again) and will be written anew"
            unmap()
        }
        if let damage = readJournal() {
            // Which task the entry was about cannot be known: none of what is kept counts.
            let problem = "\(journalPath): \(damage); the task state is ignored (the tasks run again) and will be written anew"
            ignoredProblem = ignoredProblem.map { $0 + "; " + problem } ?? problem
            unmap()
            journaled = [:]
            journalIsUsable = false
            journalWholeLength = nil
        }
    }

    deinit {
        unmap()
        journalBytes?.deallocate()
        if journalDescriptor >= 0 { close(journalDescriptor) }
    }

    /// Whether any task has a recorded success.
    package var isEmpty: Bool {
        entries.isEmpty && !journaled.values.contains { $0 != nil }
    }

    // MARK: Reading

    /// What the task `id`, at `index` in the plan, left at its last success, as found when the
    /// run began; nil if nothing is kept of it.
    package func stored(at index: Int, id: String) -> StoredTask? {
        if !journaled.isEmpty, let entry = journaled[id] {
            guard let entry, let journalBytes else { return nil }
            return StoredTask(bytes: UnsafeRawBufferPointer(rebasing: journalBytes[entry]))
        }
        guard let mapped else { return nil }
        if index < entries.count {
            let task = StoredTask(bytes: UnsafeRawBufferPointer(rebasing: mapped[entries[index]]))
            if task.hasID(id) { return task }
        }
        // The plan changed (a task added, removed or moved, or another target): by id.
        if indexesByID == nil {
            var indexes: [String: Int] = [:]
            for (position, entry) in entries.enumerated() {
                indexes[StoredTask(bytes: UnsafeRawBufferPointer(rebasing: mapped[entry])).id] = position
            }
            indexesByID = indexes
        }
        return indexesByID?[id].map { StoredTask(bytes: UnsafeRawBufferPointer(rebasing: mapped[entries[$0]])) }
    }

    /// Maps the `.bin` file and finds each task's bytes; what is wrong with it, if anything.
    private func mapFile() -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return errno == ENOENT ? nil : "cannot be read (\(String(cString: strerror(errno))))" }
        defer { close(descriptor) }
        guard let status = FileStatus.of(descriptor: descriptor) else { return "is not a regular file" }
        guard status.size > 0 else { return nil }  // made, then killed before it was written
        guard let base = mmap(nil, Int(status.size), PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else {
            return "cannot be read (\(String(cString: strerror(errno))))"
        }
        let bytes = UnsafeRawBufferPointer(start: base, count: Int(status.size))
        mapped = bytes
        return readEntries(of: bytes)
    }

    private func readEntries(of bytes: UnsafeRawBufferPointer) -> String? {
        var cursor = 0
        guard let version = Self.header(of: bytes, magic: Self.magic, cursor: &cursor) else {
            return "is not a flowrun task state file"
        }
        guard version == Self.version else {
            return "was written by another flowrun (state format \(version); this one reads \(Self.version))"
        }
        let trailerSize = StateChecksum.size
        guard bytes.count >= cursor + trailerSize else { return "is damaged or cut short" }
        let body = UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - trailerSize)])
        // Checked a piece at a time, each piece's pages let go of once read: the whole file
        // is never in the process's memory at once (each task's bytes come back when read).
        var checksum = StateChecksum()
        var checked = 0
        while checked < body.count {
            let end = min(checked + Self.releasePiece, body.count)
            checksum.update(UnsafeRawBufferPointer(rebasing: body[checked..<end]))
            releasePages(before: end)
            checked = end
        }
        guard StateChecksum.read(in: bytes, at: body.count) == checksum.value else { return "is damaged or cut short" }
        guard let file = Self.text(in: body, cursor: &cursor) else { return "is damaged" }
        guard file == workflowFile else { return "belongs to \(file)" }
        guard let count = Self.integer(in: body, cursor: &cursor) else { return "is damaged" }
        var entries: [Range<Int>] = []
        entries.reserveCapacity(min(count, body.count / 200))
        var released = 0
        for _ in 0..<count {
            guard let length = TaskStateBytes.length(of: body, at: cursor) else { return "is damaged" }
            entries.append(cursor..<cursor + length)
            cursor += length
            if cursor >= released + Self.releasePiece {
                released = cursor
                releasePages(before: released)
            }
        }
        guard cursor == body.count else { return "is damaged" }
        releasePages()
        self.entries = entries
        return nil
    }

    /// Lets go of the pages of the mapped file wholly before `offset` (all of them by
    /// default): they leave the process's memory and come back from the page cache when read
    /// again, the same bytes (the file is never written through the mapping). A run that reads
    /// the tasks in order calls it as it goes (`UpToDateCheck`'s check before the run).
    package func releasePages(before offset: Int = .max) {
        guard let mapped, let base = mapped.baseAddress else { return }
        let length = min(offset, mapped.count) / Self.pageSize * Self.pageSize
        guard length > 0 else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base), length, MADV_DONTNEED)
    }

    private static let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 1)

    private func unmap() {
        if let mapped { munmap(UnsafeMutableRawPointer(mutating: mapped.baseAddress), mapped.count) }
        mapped = nil
        entries = []
        indexesByID = nil
    }

    /// Reads the journal's whole entries; stops at the first torn or damaged one. Returns what
    /// is wrong with a damaged one (not a torn last one, which a kill leaves).
    private func readJournal() -> String? {
        guard let data = FileManager.default.contents(atPath: journalPath), !data.isEmpty else { return nil }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 8)
        data.copyBytes(to: bytes)
        journalBytes = bytes
        let raw = UnsafeRawBufferPointer(bytes)
        var cursor = 0
        guard let version = Self.header(of: raw, magic: Self.journalMagic, cursor: &cursor), Self.text(in: raw, cursor: &cursor) == workflowFile
        else { return nil }
        // Another version's entries may be the forgetting of any task: as a damaged entry.
        guard version == Self.journalVersion else {
            return "was written by another flowrun (journal format \(version); this one reads \(Self.journalVersion))"
        }
        journalIsUsable = true
        var whole = cursor
        defer { if whole < raw.count { journalWholeLength = whole } }
        let digestSize = TaskStateBytes.digestSize
        var number = 1
        while let length = Self.integer(in: raw, cursor: &cursor), length >= 1 {
            let damaged = "entry \(number) (at byte \(whole)) is damaged"
            // Past the end: torn (a kill during its write), unless its bytes are all there, with
            // their digest, and only the length is wrong.
            guard cursor <= raw.count - digestSize - length else { return Self.isWholeEntry(raw, digestAt: cursor) ? damaged : nil }
            let payload = (cursor + digestSize)..<(cursor + digestSize + length)
            guard SHA256.hash(data: UnsafeRawBufferPointer(rebasing: raw[payload])).elementsEqual(raw[cursor..<cursor + digestSize])
            else { return damaged }
            let entry = UnsafeRawBufferPointer(rebasing: raw[(payload.lowerBound + 1)..<payload.upperBound])
            switch raw[payload.lowerBound] {
            case UInt8(ascii: "T"):
                guard TaskStateBytes.length(of: entry, at: 0) == entry.count else { return damaged }
                journaled[StoredTask(bytes: entry).id] = (payload.lowerBound + 1)..<payload.upperBound
            case UInt8(ascii: "D"):
                journaled[String(decoding: entry, as: UTF8.self)] = .some(nil)
            default:
                return damaged
            }
            cursor = payload.upperBound
            whole = cursor
            number += 1
        }
        return nil
    }

    /// The longest forgetting tried by `isWholeEntry`: one entry's bytes, the `D` and a task id.
    static let longestForgetting = 1 << 16

    /// Whether the journal entry whose SHA-256 is at `digest` in `raw` is whole, though its
    /// length points past the end: the bytes after the digest start with a payload that has it.
    /// A task's payload says its own length (`TaskStateBytes`); a forgetting's is tried at each
    /// end up to `longestForgetting`. A torn entry, cut short, has no such payload.
    static func isWholeEntry(_ raw: UnsafeRawBufferPointer, digestAt digest: Int) -> Bool {
        let start = digest + TaskStateBytes.digestSize
        guard start < raw.count else { return false }
        let expected = raw[digest..<start]
        switch raw[start] {
        case UInt8(ascii: "T"):
            guard let length = TaskStateBytes.length(of: UnsafeRawBufferPointer(rebasing: raw[(start + 1)...]), at: 0) else { return false }
            return SHA256.hash(data: UnsafeRawBufferPointer(rebasing: raw[start..<start + 1 + length])).elementsEqual(expected)
        case UInt8(ascii: "D"):
            var hasher = SHA256()
            for end in start..<min(raw.count, start + longestForgetting) {
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: raw[end..<end + 1]))
                if end > start, hasher.finalize().elementsEqual(expected) { return true }
            }
            return false
        default:
            return false
        }
    }

    /// The magic line and version at the start of `bytes`; nil if it is not there.
    private static func header(of bytes: UnsafeRawBufferPointer, magic: [UInt8], cursor: inout Int) -> UInt32? {
        guard bytes.count >= magic.count + 4, bytes[..<magic.count].elementsEqual(magic) else { return nil }
        cursor = magic.count
        return integer(in: bytes, cursor: &cursor).map(UInt32.init)
    }

    private static func integer(in bytes: UnsafeRawBufferPointer, cursor: inout Int) -> Int? {
        guard cursor <= bytes.count - 4 else { return nil }
        let value = bytes.loadUnaligned(fromByteOffset: cursor, as: UInt32.self).littleEndian
        cursor += 4
        return Int(value)
    }

    private static func text(in bytes: UnsafeRawBufferPointer, cursor: inout Int) -> String? {
        guard let length = integer(in: bytes, cursor: &cursor), cursor <= bytes.count - length else { return nil }
        defer { cursor += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[cursor..<cursor + length]), as: UTF8.self)
    }

    /// The version and the workflow's path, after a file's magic line.
    private func header(version: UInt32) -> [UInt8] {
        var rest: [UInt8] = []
        TaskStateBytes.appendInteger(version, to: &rest)
        TaskStateBytes.appendText(workflowFile, to: &rest)
        return rest
    }

    // MARK: Changes

    /// Remembers a task's success, appended to the journal at once. `value`, when the caller
    /// knows it already, is the fingerprint's whole value (`TaskFingerprint.value`): it spares
    /// hashing the four parts again.
    package func recordSuccess(_ state: TaskState, value: String? = nil) throws(TaskStatesError) {
        var payload: [UInt8] = [UInt8(ascii: "T")]
        TaskStateBytes.append(state, value: value, to: &payload)
        changes[state.id] = .some(Array(payload[1...]))
        try appendToJournal(payload)
    }

    /// Forgets a task's success: it is about to run again, and a run that fails or is killed
    /// midway must not leave it up to date.
    package func forget(_ id: String, at index: Int) throws(TaskStatesError) {
        if let change = changes[id] {
            guard change != nil else { return }
        } else if stored(at: index, id: id) == nil {
            return
        }
        changes[id] = .some(nil)
        try appendToJournal([UInt8(ascii: "D")] + Array(id.utf8))
    }

    /// Keeps new stamps of an up-to-date task's files (hashed again with the same contents), so
    /// that they are not hashed next time; written at `compact` only.
    package func refresh(_ state: TaskState) {
        var bytes: [UInt8] = []
        TaskStateBytes.append(state, to: &bytes)
        changes[state.id] = .some(bytes)
    }

    private func appendToJournal(_ payload: [UInt8]) throws(TaskStatesError) {
        if journalDescriptor < 0 {
            do { try folder.create() } catch { throw TaskStatesError("cannot make \(folder.path): \(error.localizedDescription)") }
            // A journal that cannot be read on is started afresh; O_NOFOLLOW: nothing planted
            // in the state folder is written through.
            let fresh = !journalIsUsable
            journalDescriptor = open(journalPath, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | (fresh ? O_TRUNC : 0), FileAccess.owner.fileMode)
            guard journalDescriptor >= 0 else { throw TaskStatesError("cannot write \(journalPath): \(String(cString: strerror(errno)))") }
            if !fresh, let whole = journalWholeLength {
                guard ftruncate(journalDescriptor, off_t(whole)) == 0 else {
                    let reason = String(cString: strerror(errno))
                    close(journalDescriptor)
                    journalDescriptor = -1
                    throw TaskStatesError("cannot write \(journalPath): \(reason)")
                }
                journalWholeLength = nil
            }
            if fresh {
                var bytes = Self.journalMagic
                bytes += header(version: Self.journalVersion)
                try writeJournal(bytes)
                journalIsUsable = true
            }
        }
        var entry: [UInt8] = []
        TaskStateBytes.appendInteger(UInt32(payload.count), to: &entry)
        entry += SHA256.hash(data: payload)
        entry += payload
        try cutFailedAppend()
        let start = lseek(journalDescriptor, 0, SEEK_END)
        do {
            try writeJournal(entry)
        } catch {
            // A write that failed midway (a full disk) leaves part of an entry, which would end
            // the journal for its reader and hide every later entry: cut it off, now or before
            // the next append.
            if start >= 0 { failedAppendStart = start }
            try? cutFailedAppend()
            throw error
        }
    }

    /// Cuts the journal back to where an append that failed began.
    private func cutFailedAppend() throws(TaskStatesError) {
        guard let start = failedAppendStart else { return }
        guard ftruncate(journalDescriptor, start) == 0 else {
            throw TaskStatesError("cannot write \(journalPath): \(String(cString: strerror(errno)))")
        }
        failedAppendStart = nil
    }

    private func writeJournal(_ bytes: [UInt8]) throws(TaskStatesError) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let count = rest.withUnsafeBytes { Glibc.write(journalDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw TaskStatesError("cannot write \(journalPath): \(String(cString: strerror(count == 0 ? ENOSPC : errno)))")
            }
            rest = rest.dropFirst(count)
        }
    }

    // MARK: The end of a run

    /// Writes the `.bin` file anew if the run changed anything or a journal was found: the tasks
    /// of `plan` (their ids, in order) first, then every other task kept (another target's).
    package func compact(plan ids: [String]) throws(TaskStatesError) {
        if journalDescriptor >= 0 {
            close(journalDescriptor)
            journalDescriptor = -1
        }
        guard !changes.isEmpty || journalIsUsable || ignoredProblem != nil else { return }
        do throws(FileError) {
            try write(plan: ids)
        } catch {
            throw TaskStatesError(error.description)
        }
        // Folded in: a crash before this line replays it over the new file, which changes nothing.
        unlink(journalPath)
        journalIsUsable = false
        // The text log of flowrun before this file, if one is left: nothing reads it any more.
        unlink(folder.file("fingerprints-\(key).log"))
    }

    private func write(plan ids: [String]) throws(FileError) {
        var order: [String] = []
        var seen = Set<String>()
        for id in ids where seen.insert(id).inserted { order.append(id) }
        if let mapped {
            for entry in entries {
                let id = StoredTask(bytes: UnsafeRawBufferPointer(rebasing: mapped[entry])).id
                if seen.insert(id).inserted { order.append(id) }
            }
        }
        for id in journaled.keys.sorted() + changes.keys.sorted() where seen.insert(id).inserted { order.append(id) }

        // Each task's bytes: a change made now, else the journal's, else the file's, copied.
        var pieces: [(change: [UInt8]?, stored: UnsafeRawBufferPointer?)] = []
        for (index, id) in order.enumerated() {
            if let change = changes[id] {
                if let change { pieces.append((change, nil)) }
            } else if let stored = stored(at: index, id: id) {
                pieces.append((nil, stored.bytes))
            }
        }
        guard !pieces.isEmpty || FileManager.default.fileExists(atPath: path) else { return }
        let file = try AtomicFile(destination: path, access: .owner)
        var checksum = StateChecksum()
        var buffer = Self.magic + header(version: Self.version)
        TaskStateBytes.appendInteger(UInt32(pieces.count), to: &buffer)
        func flush(atLeast count: Int) throws(FileError) {
            guard buffer.count >= count else { return }
            checksum.update(buffer)
            var failure: FileError?
            buffer.withUnsafeBytes { raw in
                do throws(FileError) { try file.write(raw) } catch { failure = error }
            }
            if let failure { throw failure }
            buffer.removeAll(keepingCapacity: true)
        }
        for piece in pieces {
            if let change = piece.change { buffer += change }
            if let stored = piece.stored { buffer += stored }
            try flush(atLeast: Self.writePiece)
        }
        try flush(atLeast: 0)
        buffer += StateChecksum.bytes(of: checksum.value)
        try flush(atLeast: 0)
        try file.commit()
    }
}

package struct TaskStatesError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
