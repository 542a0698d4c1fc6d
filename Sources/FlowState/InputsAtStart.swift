import FlowFiles

/// A task's inputs as they were when it started, to tell at its end whether one changed while
/// it ran (the task wrote to its input, an editor saved it): its result then stands, but it is
/// not recorded as up to date, so the next run builds it again, as make, ninja and Bazel do.
///
/// Statuses are enough for a file that had settled when the task started; a small one changed
/// too shortly before (`FileStatus.isRacy`) is hashed at the start and again at the end. A
/// large racy one (a download or an extraction that just ended) is compared by status only:
/// hashing it at the start would hold up the task's start, its timeout and a Ctrl-C, and a
/// same-sized rewrite of it within one timestamp tick is out of reach of any build tool's stat.
struct InputsAtStart {
    /// The most a racy file may hold to be hashed at the start.
    static let hashedAtStartLimit: Int64 = 1 << 20

    private let patterns: [String]
    private let own: OwnOutputs
    private let singleFiles: Int
    private let files: [FoundFile]
    /// The digests at the start of the racy files, by path.
    private let racyDigests: [String: String?]

    /// The inputs named by `patterns` now, less the task's own outputs (which it changes);
    /// racy files are hashed with `digests`. `singleFiles`: as `FileDigests.statuses`.
    /// The inputs of `task` as it starts, its own outputs left out.
    init(of task: TaskFiles, digests: inout FileDigests) {
        self.init(
            TaskDefinition.inputs(of: task), leavingOut: TaskDefinition.ownOutputs(of: task),
            singleFiles: TaskDefinition.singleFileInputs(of: task), digests: &digests)
    }

    init(_ patterns: [String], leavingOut own: OwnOutputs = .none, singleFiles: Int = 0, digests: inout FileDigests) {
        (self.patterns, self.own, self.singleFiles) = (patterns, own, singleFiles)
        files = digests.statuses(ofPatterns: patterns, leavingOut: own, singleFiles: singleFiles)
        var racyDigests: [String: String?] = [:]
        for file in files {
            guard let status = file.status, status.size <= Self.hashedAtStartLimit, status.isRacy(at: digests.moment) else { continue }
            racyDigests[file.path] = digests.digest(of: file.path, status: status)
        }
        self.racyDigests = racyDigests
    }

    /// Whether the same patterns name the same files now, with the same statuses, and the racy
    /// ones with the same contents.
    func areUnchanged(digests: inout FileDigests) -> Bool {
        unchangedFiles(digests: &digests) != nil
    }

    /// The files the patterns name now, with their statuses, if they are those of the start
    /// (`areUnchanged`); nil otherwise. The inputs hashed at a success are these: a file saved
    /// after this look is found changed by its hash (`FileDigests.record`), not taken anew.
    func unchangedFiles(digests: inout FileDigests) -> [FoundFile]? {
        let now = digests.statuses(ofPatterns: patterns, leavingOut: own, singleFiles: singleFiles)
        guard now.count == files.count else { return nil }
        for (then, now) in zip(files, now) where then.pattern != now.pattern || then.path != now.path || then.status != now.status {
            return nil
        }
        for (path, digest) in racyDigests where digests.digest(of: path) != digest { return nil }
        return now
    }
}
