/// A task that succeeded, with what its up-to-date check took as it started
/// (`UpToDateCheck.taskSucceeded`): what its files are hashed against once it has ended.
struct SucceededTask {
    var index: Int
    /// Its fingerprint as it started: without its inputs' digest when `hashInputsNow`.
    var fingerprint: TaskFingerprint
    /// Its input files, as taken by the check before it started.
    var inputFiles: [StampedFile]
    /// Its inputs as they were at its start: nil when they were not taken (a cancel cut the check short).
    var atStart: InputsAtStart?
    /// Its inputs are hashed now, not before it started.
    var hashInputsNow: Bool
}

/// What hashing a success's files found (`UpToDateCheck.taskSucceeded`).
struct HashedSuccess {
    var index: Int
    /// Its fingerprint with its inputs' digest, when they were hashed at its success.
    var fingerprint: TaskFingerprint?
    /// Its state to record; nil when it is not recorded (an input changed while it ran, an
    /// output is missing, or Ctrl-C cut a hash short).
    var state: TaskState?
    /// The clock before its files were looked at: what its racy files settle from.
    var moment: Int64 = 0
}
