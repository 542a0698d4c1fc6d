import FlowFiles

/// The successes of a run whose files were hashed too soon after they changed to be trusted on
/// their stamps later (`FileStatus.isRacy`: an output hashed as its task ended), held a few
/// milliseconds until the clock has passed them, then hashed once more and recorded with stamps
/// that stand (git's racy-git fix, done by the run that wrote the files rather than by the next
/// one, which then only stats them). A file that changed meanwhile, even within its stamp's
/// tick (its contents differ), leaves its task unrecorded: it runs again next time, as one
/// that changed during the run does.
struct SettlingStates {
    /// How far ahead a success may settle to be held: one on a file system that stamps whole
    /// seconds is recorded at once, racy, and hashed again by the next run, as before.
    static let longestHold: Int64 = 100_000_000

    private struct Held {
        var state: TaskState
        /// The task's plan index.
        var index: Int
        /// The moment after which every racy file of it has settled.
        var settlesAfter: Int64
    }

    /// In the order they succeeded (and so, nearly, of `settlesAfter`); `first` the oldest not
    /// yet taken.
    private var held: [Held] = []
    private var first = 0

    var isEmpty: Bool { first == held.count }

    /// The moment after which the oldest state held has settled; nil if none is held.
    var firstSettling: Int64? { isEmpty ? nil : held[first].settlesAfter }

    /// The moment after which every state held has settled; nil if none is held.
    var lastSettling: Int64? { held[first...].map(\.settlesAfter).max() }

    /// Holds `state`, of the task at plan `index`, if some file of it is racy and settles within
    /// `longestHold` of `moment`; false if it is to be recorded now.
    mutating func hold(_ state: TaskState, of index: Int, at moment: Int64) -> Bool {
        var settlesAfter: Int64?
        for file in state.inputs + state.outputs where Self.isHeld(file.record) {
            settlesAfter = max(settlesAfter ?? .min, file.record.status.racyUntil)
        }
        guard let settlesAfter, settlesAfter - moment <= Self.longestHold else { return false }
        held.append(Held(state: state, index: index, settlesAfter: settlesAfter))
        return true
    }

    /// Takes the states held whose files have settled at `digests.moment`, oldest first, each
    /// with its racy files hashed again; nil in place of one whose racy file changed since it was
    /// hashed (its status or its contents).
    mutating func takeSettled(digests: inout FileDigests) -> [(index: Int, state: TaskState?)] {
        var settled: [(index: Int, state: TaskState?)] = []
        while first < held.count, held[first].settlesAfter < digests.moment {
            let state = held[first].state
            settled.append((held[first].index, Self.settle(state, digests: &digests)))
            first += 1
        }
        if first > 64, first * 2 > held.count {
            held.removeFirst(first)
            first = 0
        }
        return settled
    }

    /// The most a racy file may hold to be hashed again once settled: one read, so that the
    /// second hash costs about the open. A larger one (a download or an extraction, whose digest
    /// the action took as it wrote it) keeps its racy record, hashed again by the next run, as
    /// before: reading back 200 downloads of 1 MiB would cost more than that run saves.
    static let largestHeld: Int64 = 64 * 1024

    /// A file hashed again once settled: a small one that was racy when hashed.
    private static func isHeld(_ record: FileRecord) -> Bool {
        record.size <= largestHeld && record.status.isRacy(at: record.hashedAtNanoseconds)
    }

    private static func settle(_ state: TaskState, digests: inout FileDigests) -> TaskState? {
        var state = state
        func settle(_ files: inout [StampedFile]) -> Bool {
            for index in files.indices where isHeld(files[index].record) {
                let kept = files[index].record
                guard let status = digests.fileSystem.status(of: files[index].path), status == kept.status,
                    let record = digests.record(of: files[index].path, status: status), record.digest == kept.digest
                else { return false }
                files[index].record = record
            }
            return true
        }
        guard settle(&state.inputs), settle(&state.outputs) else { return nil }
        return state
    }
}
