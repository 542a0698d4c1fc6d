import FlowFiles

/// The digest of a task's inputs or outputs now, taken from what the task state kept at its
/// last success (`StoredTask`) while every file's stamp stands: the same patterns name the same
/// files, each with the size, mtime, ctime and inode kept and not racy when it was hashed
/// (`FileRecord.stands(for:)`). Then nothing is hashed. Otherwise each file whose stamp changed,
/// and each new one, is hashed, and the files' new stamps come back for the state.
enum StampedCheck {
    struct Result {
        var digest: String
        /// The patterns that name no file.
        var missing: [String]
        /// The files behind `digest` with their stamps, when they differ from those kept; nil
        /// when every kept stamp stood.
        var restamped: [StampedFile]?
    }

    /// - Parameters:
    ///   - found: the files `patterns` name and their statuses, if already taken.
    ///   - own: the task's outputs, left out of its inputs' globs and folders.
    ///   - singleFiles: as `FileDigests.statuses`.
    static func files(
        _ patterns: [String], found: ArraySlice<FoundFile>? = nil, leavingOut own: @autoclosure () -> OwnOutputs = .none, singleFiles: Int = 0,
        kept stored: StoredTask, outputs: Bool, digests: inout FileDigests
    ) -> Result {
        let found = found ?? digests.statuses(ofPatterns: patterns, leavingOut: own(), singleFiles: singleFiles, areOutputs: outputs)[...]
        if stored.stands(for: found, outputs: outputs) {
            let keptDigest = stored.hex(outputs ? .outputs : .inputs)
            return Result(digest: keptDigest, missing: missing(patterns, found: found), restamped: nil)
        }
        // Only this task's files are known here: each file's record as this task last saw it.
        for file in stored.files(outputs: outputs) { digests.know(file) }
        let result = digests.digest(of: found, patterns: patterns)
        return Result(digest: result.digest, missing: result.missing, restamped: result.files)
    }

    /// The patterns no found file came from (`found` in pattern order), or one that cannot be
    /// stat'ed came from (as `FileDigests.digest(of:patterns:)`).
    static func missing(_ patterns: [String], found: ArraySlice<FoundFile>) -> [String] {
        var missing: [String] = []
        var next = found.startIndex
        for (index, pattern) in patterns.enumerated() {
            let first = next
            var unseen = false
            while next < found.endIndex, found[next].pattern == index {
                unseen = unseen || found[next].status == nil
                next += 1
            }
            if next == first || unseen { missing.append(pattern) }
        }
        return missing
    }
}
