import FlowFiles
import Glibc

/// The bytes of one task in the task state file (`TaskStates`), little-endian:
///
///     u32 id length, the id (UTF-8)
///     32 bytes each: the definition, env, inputs and needs digests, the outputs' digest, and the
///       fingerprint's whole value (so that an up-to-date task's is not hashed again)
///     u32 input files, u32 output files
///     each file, inputs first: u32 pattern index, u32 path length, the path (`HiddenPath`'s
///       form for one holding a secret value),
///       i64 size, i64 mtime, i64 ctime, u64 inode, i64 hashed-at (nanoseconds), 16-byte digest
///       of its contents (XXH3-128, `XXH128Hasher`; the parts above are SHA-256)
///
/// Digests are kept raw, not as hex: a run compares them in place, in the mapped file.
enum TaskStateBytes {
    /// A part's size: a SHA-256.
    static let digestSize = 32
    static let digestCount = 6
    /// A file's contents' digest size: an XXH3-128.
    static let fileDigestSize = XXH128Hasher.size
    /// A file's bytes after its path.
    static let fileTail = 5 * 8 + fileDigestSize

    /// Appends `state`'s bytes to `bytes`; `value`, when known, is its fingerprint's whole value
    /// (taken here otherwise: a SHA-256 of the four parts).
    static func append(_ state: TaskState, value: String? = nil, to bytes: inout [UInt8]) {
        assert(value == nil || value == state.record.fingerprint.value, "the value given is not the fingerprint's")
        appendText(state.id, to: &bytes)
        let fingerprint = state.record.fingerprint
        // One by one, not from an array of the six: a task's state is appended for every
        // tracked task that succeeded (the compacted file copies the journal's bytes).
        _ = appendDigest(fingerprint.definition, to: &bytes)
        _ = appendDigest(fingerprint.environment, to: &bytes)
        _ = appendDigest(fingerprint.inputs, to: &bytes)
        _ = appendDigest(fingerprint.needs, to: &bytes)
        _ = appendDigest(state.record.outputs, to: &bytes)
        _ = appendDigest(value ?? fingerprint.value, to: &bytes)
        appendInteger(UInt32(state.inputs.count), to: &bytes)
        appendInteger(UInt32(state.outputs.count), to: &bytes)
        for file in state.inputs { append(file, to: &bytes) }
        for file in state.outputs { append(file, to: &bytes) }
    }

    private static func append(_ file: StampedFile, to bytes: inout [UInt8]) {
        appendInteger(UInt32(file.pattern), to: &bytes)
        appendText(file.path, to: &bytes)
        let record = file.record
        // A digest that is not one (never the case for an XXH3-128) is kept as never hashed.
        let isDigest = isHex(record.digest, size: fileDigestSize)
        appendInteger(record.size, to: &bytes)
        appendInteger(record.modifiedNanoseconds, to: &bytes)
        appendInteger(record.changedNanoseconds, to: &bytes)
        appendInteger(record.inode, to: &bytes)
        appendInteger(isDigest ? record.hashedAtNanoseconds : 0, to: &bytes)
        _ = appendDigest(record.digest, to: &bytes, size: fileDigestSize)
    }

    /// Whether `hex` is `digestSize` bytes in lowercase hex.
    static func isHex(_ hex: String, size digestSize: Int) -> Bool {
        var hex = hex
        return hex.withUTF8 { text in text.count == 2 * digestSize && text.allSatisfy { nibble($0) != nil } }
    }

    static func appendInteger<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    static func appendText(_ text: String, to bytes: inout [UInt8]) {
        appendInteger(UInt32(text.utf8.count), to: &bytes)
        bytes += text.utf8
    }

    /// Appends the `size` bytes that lowercase `hex` spells; zeros, and false, if it spells none.
    @discardableResult
    static func appendDigest(_ hex: String, to bytes: inout [UInt8], size digestSize: Int = digestSize) -> Bool {
        var hex = hex
        // Decoded into a buffer of its own and appended at once: an append a byte checked the
        // array's uniqueness and room 32 times a digest (~1.7 K instructions each).
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: digestSize) { raw in
            let valid = hex.withUTF8 { text -> Bool in
                guard text.count == 2 * digestSize else { return false }
                for index in 0..<digestSize {
                    guard let high = nibble(text[2 * index]), let low = nibble(text[2 * index + 1]) else { return false }
                    raw[index] = high << 4 | low
                }
                return true
            }
            if !valid { raw.initialize(repeating: 0) }
            bytes.append(contentsOf: UnsafeBufferPointer(raw))
            return valid
        }
    }

    static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The length of the task's bytes starting at `offset`, every length in them checked
    /// against `bytes`' end; nil if they run past it (a damaged or cut file).
    static func length(of bytes: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        var cursor = offset
        func skip(_ count: Int) -> Bool {
            guard count >= 0, cursor <= bytes.count - count else { return false }
            cursor += count
            return true
        }
        func integer() -> Int? {
            guard cursor <= bytes.count - 4 else { return nil }
            let value = bytes.loadUnaligned(fromByteOffset: cursor, as: UInt32.self).littleEndian
            cursor += 4
            return Int(value)
        }
        guard let idLength = integer(), skip(idLength), skip(digestCount * digestSize), let inputs = integer(),
            let outputs = integer()
        else { return nil }
        for _ in 0..<(inputs + outputs) {
            guard integer() != nil, let pathLength = integer(), skip(pathLength), skip(fileTail) else { return nil }
        }
        return cursor - offset
    }
}

/// One task's bytes in the task state file, read in place (`TaskStateBytes`); checked whole
/// when the file was read, so every read here is within them. Valid while the `TaskStates` it
/// came from lives (the file is mapped until then).
package struct StoredTask: @unchecked Sendable {
    /// The parts of the record, in the order kept.
    package enum Part: Int {
        case definition, environment, inputs, needs, outputs, value
    }

    let bytes: UnsafeRawBufferPointer

    private func integer(at offset: Int) -> Int {
        Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
    }

    private var idLength: Int { integer(at: 0) }
    private var digestsStart: Int { 4 + idLength }
    private var countsStart: Int { digestsStart + TaskStateBytes.digestCount * TaskStateBytes.digestSize }
    var inputCount: Int { integer(at: countsStart) }
    var outputCount: Int { integer(at: countsStart + 4) }

    var id: String { String(decoding: UnsafeRawBufferPointer(rebasing: bytes[4..<digestsStart]), as: UTF8.self) }

    func hasID(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { $0.count == idLength && (idLength == 0 || memcmp($0.baseAddress!, bytes.baseAddress! + 4, idLength) == 0) }
    }

    func digest(_ part: Part) -> UnsafeRawBufferPointer {
        let start = digestsStart + part.rawValue * TaskStateBytes.digestSize
        return UnsafeRawBufferPointer(rebasing: bytes[start..<start + TaskStateBytes.digestSize])
    }

    /// Whether the part kept is the one lowercase `hex` spells: compared without making text.
    package func part(_ part: Part, is hex: String) -> Bool {
        Self.digest(digest(part), is: hex)
    }

    func hex(_ part: Part) -> String { FileRecord.hex(digest(part)) }

    /// The task's record, as text.
    var record: TaskRecord {
        TaskRecord(
            fingerprint: TaskFingerprint(
                definition: hex(.definition), environment: hex(.environment), inputs: hex(.inputs), needs: hex(.needs)),
            outputs: hex(.outputs))
    }

    /// The files behind the inputs' digest (`outputs` false) or the outputs'.
    func files(outputs: Bool) -> [StampedFile] {
        var files: [StampedFile] = []
        forEachFile(outputs: outputs) { pattern, path, status, hashedAt, digest in
            let record = FileRecord(status: status, digest: FileRecord.hex(digest), hashedAtNanoseconds: hashedAt)
            files.append(StampedFile(pattern: pattern, path: String(decoding: path, as: UTF8.self), record: record))
            return true
        }
        return files
    }

    /// Whether `found` (each file the task's patterns name now, with its pattern's index and its
    /// status) is the list kept, in order, and each file's kept digest still stands for it
    /// (`FileRecord.stands(for:)`: the same stamp, and not racy when hashed).
    func stands(for found: ArraySlice<FoundFile>, outputs: Bool) -> Bool {
        guard found.count == (outputs ? outputCount : inputCount) else { return false }
        var index = found.startIndex
        return forEachFile(outputs: outputs) { pattern, path, status, hashedAt, _ in
            let now = found[index]
            index += 1
            guard let nowStatus = now.status, now.pattern == pattern, nowStatus == status, !status.isRacy(at: hashedAt) else {
                return false
            }
            // A path kept hidden (`HiddenPath`: it holds a secret) is compared in that form.
            var nowPath = HiddenPath.isHidden(path) ? HiddenPath.of(now.path) : now.path
            return nowPath.withUTF8 { $0.count == path.count && (path.isEmpty || memcmp($0.baseAddress!, path.baseAddress!, path.count) == 0) }
        }
    }

    /// Calls `body` with each file's pattern index, path bytes, status, hashed-at and digest,
    /// while it returns true; whether it did for every file.
    @discardableResult
    private func forEachFile(
        outputs: Bool,
        _ body: (Int, UnsafeRawBufferPointer, FileStatus, Int64, UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        var cursor = countsStart + 8
        let skipped = outputs ? inputCount : 0
        let count = outputs ? outputCount : inputCount
        for index in 0..<(skipped + count) {
            let pattern = integer(at: cursor)
            let pathLength = integer(at: cursor + 4)
            let pathStart = cursor + 8
            cursor = pathStart + pathLength + TaskStateBytes.fileTail
            guard index >= skipped else { continue }
            let tail = pathStart + pathLength
            func int64(_ field: Int) -> Int64 { bytes.loadUnaligned(fromByteOffset: tail + 8 * field, as: Int64.self).littleEndian }
            let status = FileStatus(
                size: int64(0), modifiedNanoseconds: int64(1), changedNanoseconds: int64(2), inode: UInt64(bitPattern: int64(3)))
            let path = UnsafeRawBufferPointer(rebasing: bytes[pathStart..<tail])
            let digest = UnsafeRawBufferPointer(rebasing: bytes[(tail + 40)..<(tail + 40 + TaskStateBytes.fileDigestSize)])
            guard body(pattern, path, status, int64(4), digest) else { return false }
        }
        return true
    }

    static func digest(_ raw: UnsafeRawBufferPointer, is hex: String) -> Bool {
        var hex = hex
        return hex.withUTF8 { text in
            guard text.count == 2 * raw.count else { return false }
            // Each byte spelled out and compared: no parsing of the text, no branch per digit.
            var differences: UInt8 = 0
            for index in 0..<raw.count {
                let byte = raw[index]
                differences |= (text[2 * index] ^ FileRecord.hexDigit(byte >> 4)) | (text[2 * index + 1] ^ FileRecord.hexDigit(byte & 15))
            }
            return differences == 0
        }
    }
}

/// A file that a task's pattern (by its index) names now, with its status (nil: unreadable).
package struct FoundFile: Sendable {
    package var pattern: Int
    package var path: String
    package var status: FileStatus?
}
