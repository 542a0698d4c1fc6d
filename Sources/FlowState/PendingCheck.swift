import FlowModel

/// The check of a task about to start whose files' stamps do not all stand: what was taken on
/// the loop (all but the hashes), for its files to be hashed off it (`UpToDateCheck.check(_:decided:)`).
struct PendingCheck {
    var index: Int
    var id: TaskID
    var task: TaskFiles
    /// Its fingerprint without its inputs' digest; its other parts match the record.
    var fingerprint: TaskFingerprint
    /// What the state kept of it.
    var stored: StoredTask
    /// Its inputs and their statuses (before the run, or as it was checked).
    var inputs: [FoundFile]
    /// Its outputs and their statuses, when taken.
    var outputs: [FoundFile]?
}

/// What hashing a check's files found (`UpToDateCheck.examine`).
struct CheckedFiles {
    /// The fingerprint with its inputs' digest.
    var fingerprint: TaskFingerprint
    var inputs: StampedCheck.Result
    /// The outputs, when all else matched the record.
    var outputs: StampedCheck.Result?
    /// Its inputs as the task starts; nil when it is up to date.
    var atStart: InputsAtStart?
}
