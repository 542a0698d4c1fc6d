import Crypto
import FlowFiles
import FlowModel
import FlowPlanning
import Foundation

/// The compiled plan of one workflow file, kept in the state folder so that a run of an
/// unchanged workflow reads it (a few milliseconds) instead of parsing the YAML and planning
/// again (0.46 s for 20,000 tasks).
///
/// The file: a magic line, the format version, the CRC-32 of the rest (`StateChecksum`), then the key, the
/// digests of the tasks' definitions when the run took them (`DefinitionDigests`: a u64 count,
/// then 64 bytes a task), the fingerprint values and resume keys of the tasks whose fingerprint
/// depends on the plan alone (`PlanFingerprints`: a u64 count, then 64 bytes a task) and the
/// plan (`Plan.compiled`). The key is the digest of everything else a plan depends on
/// (`PlanCache.settings`: the command line, this flowrun binary), each file the workflow was
/// made of (the workflow, its includes, its dotenv files, an optional dotenv file that was
/// missing) with its size, mtime and the SHA-256 of its contents, and each name the workflow
/// interpolates (`Plan.interpolatedNames`) with whether the process environment had it and the
/// SHA-256 of its value there (a digest: a value may be a secret under a plain name).
/// The plan is used only when the key matches, every file's contents hash the same now and
/// each of those names is set, or unset, to the same value now: an edit is always seen,
/// whatever its timestamps, and a variable the workflow does not read (`OLDPWD` after a `cd`,
/// `_`, what valgrind or perf set) changes nothing. Anything else (another version, bytes cut
/// short or damaged, another key) is ignored, and the cache is written again after planning.
package struct PlanCache: Sendable {
    /// 5: each of the workflow's task specs sized, so that a run steps over them (`Plan(compiled:keepingFileTasks:)`).
    /// 6: the process environment out of `settings`; the interpolated names' values in the key.
    /// 7: the fingerprints that depend on the plan alone (`PlanFingerprints`) after the definitions.
    /// 8: the rest's CRC-32 in the header instead of its SHA-256 (read on every run).
    /// 9: the workflow's `dotenvEnvironmentNames` and `dotenvSecretNames`.
    /// 10: each task spec's `secretEnvironmentNames` (an included file's secret dotenv values).
    package static let version: UInt32 = 10
    static let magic = Array("flowrun-plan\n".utf8)

    package let path: String
    private let folder: StateFolder

    /// The cache of `workflowFile` (absolute) in `folder`.
    package init(folder: StateFolder, workflowFile: String) {
        self.folder = folder
        let key = FileRecord.hex(SHA256.hash(data: Data(workflowFile.utf8))).prefix(16)
        path = folder.file("plan-\(key).bin")
    }

    /// Makes the state folder the plan is kept in, for a run that makes no other state there
    /// (`run --engine-only`): `store` writes only into a folder that is there.
    package func makeFolder() throws {
        try folder.create()
    }

    /// The digest of what, beside its files and the variables it reads, a plan depends on: the
    /// path as the command line gives it, the current folder (a relative path is resolved
    /// against it), every planning option but the process environment (the key holds what the
    /// plan read of it) and this binary (another build may plan differently).
    package static func settings(path: String, options: PlanningOptions, workingDirectory: String) -> [UInt8] {
        var text = "version\0\(version)\nfile\0\(path)\ncwd\0\(workingDirectory)\n"
        text += "targets\0\(options.targets.joined(separator: "\0"))\nonly\0\(options.onlyTargets)\n"
        text += "arguments\0\(options.taskArguments.count)\0\(options.taskArguments.joined(separator: "\0"))\n"
        for entry in options.environmentOverrides { text += "env\0\(entry.name)\0\(entry.value)\n" }
        text += "concurrency\0\(options.concurrency.map(String.init) ?? "-")\0\(options.processorCount)\n"
        let binary = LocalFileSystem().status(of: "/proc/self/exe")
        text += "binary\0\(binary.map { "\($0.size)\0\($0.modifiedNanoseconds)\0\($0.inode)" } ?? "unknown")\n"
        return Array(SHA256.hash(data: Data(text.utf8)))
    }

    /// The plan kept for `settings`, if the cache holds one and none of its files, nor of the
    /// variables it read of `environment` (the process's), changed.
    package func plan(settings: [UInt8], environment: [String: String] = [:]) -> Plan? {
        kept(settings: settings, environment: environment)?.plan
    }

    /// The same, with its tasks' definition digests when they were kept with it (one for each
    /// of its tasks, else nil), and the SHA-256 of the workflow file's contents as this read
    /// found them (the check of its files hashed them: the run record keeps it, not hashing the
    /// file again). Without `keepingFileTasks` the plan's `workflow.tasks` is left empty, and
    /// without `keepingNeedNames` its specs' `needs` (`Plan(compiled:keepingFileTasks:keepingNeedNames:)`).
    package func kept(
        settings: [UInt8], environment: [String: String] = [:], keepingFileTasks: Bool = true, keepingNeedNames: Bool = true
    ) -> (plan: Plan, definitions: DefinitionDigests?, workflowDigest: [UInt8]?, fingerprints: PlanFingerprints?)? {
        MappedFile.withBytes(of: path) { bytes -> (Plan, DefinitionDigests?, [UInt8]?, PlanFingerprints?)? in
            guard let body = Self.body(of: bytes) else { return nil }
            var offset = body.startIndex
            guard let key = Key(reading: body, at: &offset), key.settings == settings, key.variablesAreAsIn(environment), key.filesAreUnchanged,
                let digests = Self.taskSection(in: body, at: &offset), let plain = Self.taskSection(in: body, at: &offset)
            else { return nil }
            guard
                let plan = try? Plan(
                    compiled: UnsafeRawBufferPointer(rebasing: body[offset...]), keepingFileTasks: keepingFileTasks,
                    keepingNeedNames: keepingNeedNames)
            else { return nil }
            // The loader reads the workflow file first: it is the key's first file.
            let workflowDigest = key.files.first.flatMap { $0.status == nil ? nil : $0.digest }
            // None kept (the run took none), or not one a task: taken again by the run.
            return (
                plan, digests.isEmpty ? nil : DefinitionDigests(bytes: digests, count: plan.tasks.count), workflowDigest,
                plain.isEmpty ? nil : PlanFingerprints(bytes: plain, count: plan.tasks.count)
            )
        }
    }

    /// Keeps `plan`, made from `sources` (each file's absolute path and the bytes read; nil for
    /// one that was not there), for a later run with the same `settings`; only into a
    /// state folder that is there (a run that keeps no state does not make one for it), and
    /// only while every file read is still there. A plan that took a secret value (`SecretName`:
    /// from `--env`, a dotenv file or the process environment) is not kept: the file would hold
    /// it in clear, where the record and the fingerprints keep only digests. Nor is one whose
    /// download header reads a variable (`Plan.headersTakeVariables`), under any name: headers
    /// are never printed, and a token under a plain name is not masked.
    /// `definitions`: the digests the run took of the plan's tasks, kept with it; `fingerprints`:
    /// the values and keys it took that depend on the plan alone (one entry a task, or none); `environment`:
    /// the process environment the plan was made with, of which the key keeps the names it read.
    package func store(
        _ plan: Plan, sources: [(path: String, contents: [UInt8]?)], settings: [UInt8], environment: [String: String] = [:],
        definitions: DefinitionDigests? = nil, fingerprints: PlanFingerprints? = nil
    ) throws(FileError) {
        guard FileManager.default.fileExists(atPath: folder.path), !plan.tookSecrets, !plan.headersTakeVariables,
            let key = Key(settings: settings, sources: sources, variables: plan.interpolatedNames, environment: environment)
        else { return }
        var body = key.bytes
        Self.appendTaskSection(definitions.map { $0.count == plan.tasks.count ? $0.bytes : [] } ?? [], to: &body)
        Self.appendTaskSection(fingerprints.map { $0.count == plan.tasks.count ? $0.bytes : [] } ?? [], to: &body)
        body += plan.compiled
        try write(body: body)
    }

    /// Puts `fingerprints` in place of those kept with the plan in the cache (the rest of the
    /// file as it is), for a run that read the plan and took fingerprints its maker did not
    /// have (that run was cut short, or some of its tasks failed): otherwise every later run of
    /// the unchanged workflow takes them again, about a third more work a task. `fingerprints`
    /// holds one entry a task of the plan kept. Nothing happens when the cache holds no plan.
    package func replaceFingerprints(with fingerprints: PlanFingerprints) throws(FileError) {
        let body = MappedFile.withBytes(of: path) { bytes -> [UInt8]? in
            guard let body = Self.body(of: bytes) else { return nil }
            var offset = body.startIndex
            guard Key(reading: body, at: &offset) != nil, Self.taskSection(in: body, at: &offset) != nil else { return nil }
            let kept = offset
            guard Self.taskSection(in: body, at: &offset) != nil else { return nil }
            var replaced = Array(body[body.startIndex..<kept])
            Self.appendTaskSection(fingerprints.bytes, to: &replaced)
            replaced += body[offset...]
            return replaced
        }
        if let body { try write(body: body) }
    }

    /// Writes the file whole: the header, with the checksum of `body`, then `body`.
    private func write(body: [UInt8]) throws(FileError) {
        var bytes = Self.magic
        withUnsafeBytes(of: Self.version.littleEndian) { bytes += $0 }
        bytes += StateChecksum.bytes(of: body.withUnsafeBytes { StateChecksum.of($0) })
        bytes += body
        let file = try AtomicFile(destination: path, access: .owner)
        var failure: FileError?
        bytes.withUnsafeBytes { raw in
            do throws(FileError) {
                try file.write(raw)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        try file.commit()
    }

    /// The size of a task's entry in a task section: two raw digests (`DefinitionDigests`,
    /// `PlanFingerprints`).
    static let taskEntrySize = 2 * TaskStateBytes.digestSize

    /// Appends a task section: its count of entries (a little-endian u64), then `entries`
    /// (`taskEntrySize` bytes each; none when the run took none).
    private static func appendTaskSection(_ entries: [UInt8], to body: inout [UInt8]) {
        let count = UInt64(entries.count / taskEntrySize)
        for shift in stride(from: 0, to: 64, by: 8) { body.append(UInt8(truncatingIfNeeded: count >> UInt64(shift))) }
        body += entries
    }

    /// The entries of the task section at `offset` (`appendTaskSection`), with `offset` moved past
    /// it; nil if `body` is too short for it.
    private static func taskSection(in body: Slice<UnsafeRawBufferPointer>, at offset: inout Int) -> UnsafeRawBufferPointer? {
        guard body.endIndex - offset >= 8 else { return nil }
        let count = body[offset..<offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        offset += 8
        guard count <= UInt64((body.endIndex - offset) / taskEntrySize) else { return nil }
        let entries = UnsafeRawBufferPointer(rebasing: body[offset..<offset + Int(count) * taskEntrySize])
        offset += Int(count) * taskEntrySize
        return entries
    }

    /// The bytes after the header, if the magic, the version and the checksum of those bytes are right.
    private static func body(of bytes: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer>? {
        let header = magic.count + 4 + StateChecksum.size
        guard bytes.count >= header, bytes.prefix(magic.count).elementsEqual(magic) else { return nil }
        var version: UInt32 = 0
        withUnsafeMutableBytes(of: &version) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[magic.count..<magic.count + 4])) }
        guard UInt32(littleEndian: version) == Self.version else { return nil }
        let body = bytes[header...]
        guard StateChecksum.of(UnsafeRawBufferPointer(rebasing: body)) == StateChecksum.read(in: bytes, at: header - StateChecksum.size) else {
            return nil
        }
        return body
    }
}

extension PlanCache {
    /// What a kept plan was made from.
    struct Key {
        var settings: [UInt8]
        var files: [File]
        var variables: [Variable]

        /// A name the workflow interpolates, as the process environment had it.
        struct Variable: Equatable {
            var name: String
            /// The SHA-256 of its value; nil: the name was not set.
            var digest: [UInt8]?

            init(name: String, in environment: [String: String]) {
                self.name = name
                digest = environment[name].map { Array(SHA256.hash(data: Data($0.utf8))) }
            }

            init(name: String, digest: [UInt8]?) {
                self.name = name
                self.digest = digest
            }
        }

        struct File {
            var path: String
            /// nil: the file was not there.
            var status: FileStatus?
            var digest: [UInt8]
        }

        /// The files as read for the plan: the digest of the bytes read, with the status now
        /// (a change since the read shows as another digest at the next load). Nil when a file
        /// read is gone by now (deleted during the run): it would be taken for one that was
        /// never there, and a later run without it would take this plan.
        init?(settings: [UInt8], sources: [(path: String, contents: [UInt8]?)], variables: [String], environment: [String: String]) {
            self.settings = settings
            self.variables = variables.map { Variable(name: $0, in: environment) }
            var files: [File] = []
            for source in sources {
                guard let contents = source.contents else {
                    files.append(File(path: source.path, status: nil, digest: []))
                    continue
                }
                guard let status = LocalFileSystem().status(of: source.path) else { return nil }
                files.append(File(path: source.path, status: status, digest: Array(SHA256.hash(data: contents))))
            }
            self.files = files
        }

        /// Whether each name read is set, or unset, as it was, to the same value.
        func variablesAreAsIn(_ environment: [String: String]) -> Bool {
            variables.allSatisfy { $0 == Variable(name: $0.name, in: environment) }
        }

        /// Whether each file is as it was: there or not as it was, with the same size and mtime
        /// and the same contents.
        var filesAreUnchanged: Bool {
            files.allSatisfy { file in
                guard let was = file.status else { return LocalFileSystem().status(of: file.path) == nil }
                guard let now = LocalFileSystem().regularFileStatus(of: file.path), now.size == was.size, now.modifiedNanoseconds == was.modifiedNanoseconds,
                    let contents = FileManager.default.contents(atPath: file.path)
                else { return false }
                return SHA256.hash(data: contents).elementsEqual(file.digest)
            }
        }

        var bytes: [UInt8] {
            var bytes = settings
            Self.append(UInt64(files.count), to: &bytes)
            for file in files {
                Self.append(UInt64(file.path.utf8.count), to: &bytes)
                bytes += file.path.utf8
                bytes.append(file.status == nil ? 0 : 1)
                Self.append(UInt64(bitPattern: file.status?.size ?? 0), to: &bytes)
                Self.append(UInt64(bitPattern: file.status?.modifiedNanoseconds ?? 0), to: &bytes)
                bytes += file.digest.isEmpty ? [UInt8](repeating: 0, count: 32) : file.digest
            }
            Self.append(UInt64(variables.count), to: &bytes)
            for variable in variables {
                Self.append(UInt64(variable.name.utf8.count), to: &bytes)
                bytes += variable.name.utf8
                bytes.append(variable.digest == nil ? 0 : 1)
                bytes += variable.digest ?? [UInt8](repeating: 0, count: 32)
            }
            return bytes
        }

        /// The key at the start of `bytes`; `offset` is then the index just after it.
        init?(reading bytes: Slice<UnsafeRawBufferPointer>, at offset: inout Int) {
            var cursor = bytes.startIndex
            func take(_ count: Int) -> Slice<UnsafeRawBufferPointer>? {
                guard count >= 0, bytes.endIndex - cursor >= count else { return nil }
                defer { cursor += count }
                return bytes[cursor..<cursor + count]
            }
            func number() -> UInt64? {
                guard let field = take(8) else { return nil }
                return field.reversed().reduce(0) { $0 << 8 | UInt64($1) }
            }
            guard let settings = take(32), let count = number(), count <= UInt64(bytes.count) else { return nil }
            self.settings = Array(settings)
            files = []
            for _ in 0..<count {
                guard let length = number(), length <= UInt64(bytes.count), let path = take(Int(length)), let exists = take(1),
                    let size = number(), let modified = number(), let digest = take(32)
                else { return nil }
                let status =
                    exists.first == 1
                    ? FileStatus(size: Int64(bitPattern: size), modifiedNanoseconds: Int64(bitPattern: modified), changedNanoseconds: 0, inode: 0)
                    : nil
                files.append(File(path: String(decoding: path, as: UTF8.self), status: status, digest: Array(digest)))
            }
            guard let variableCount = number(), variableCount <= UInt64(bytes.count) else { return nil }
            variables = []
            for _ in 0..<variableCount {
                guard let length = number(), length <= UInt64(bytes.count), let name = take(Int(length)), let isSet = take(1),
                    let digest = take(32)
                else { return nil }
                variables.append(Variable(name: String(decoding: name, as: UTF8.self), digest: isSet.first == 1 ? Array(digest) : nil))
            }
            offset = cursor
        }

        /// Little-endian, 8 bytes.
        private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
    }
}
