/// What a task left at its last success: its fingerprint and the SHA-256 over its output files
/// and their digests.
package struct TaskRecord: Sendable, Equatable {
    package var fingerprint: TaskFingerprint
    package var outputs: String

    package init(fingerprint: TaskFingerprint, outputs: String) {
        self.fingerprint = fingerprint
        self.outputs = outputs
    }
}

/// One file of a task's inputs or outputs as its digest was taken: which of the task's patterns
/// named it (its index), its path, and its status and digest then.
package struct StampedFile: Sendable, Equatable {
    package var pattern: Int
    package var path: String
    package var record: FileRecord

    package init(pattern: Int, path: String, record: FileRecord) {
        self.pattern = pattern
        self.path = path
        self.record = record
    }
}

/// What the task state file keeps of a task: its record and the files behind its inputs' and
/// outputs' digests, so that a later run trusts the digests while every file's stamp stands.
package struct TaskState: Sendable, Equatable {
    package var id: String
    package var record: TaskRecord
    package var inputs: [StampedFile]
    package var outputs: [StampedFile]

    package init(id: String, record: TaskRecord, inputs: [StampedFile], outputs: [StampedFile]) {
        self.id = id
        self.record = record
        self.inputs = inputs
        self.outputs = outputs
    }
}
