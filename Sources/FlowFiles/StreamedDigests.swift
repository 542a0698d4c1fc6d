import Foundation

/// Digests (XXH3-128, `XXH128Hasher`) that an action computed while the bytes went by (a
/// download's body, an archive it read, the files it wrote), kept for the up-to-date
/// bookkeeping, so that a file is not read back just to hash it again.
///
/// A digest is tied to the file's status when it was noted (`FileStatus`: its inode, size, mtime
/// and ctime). A file changed since then has another status and finds nothing here: it is hashed as
/// before. A digest is handed out once (`take`), so the store holds only what no check has
/// asked for yet. Each digest keeps the wall-clock moment it was noted at: a file can change
/// again within its file system's timestamp step, so that moment, not a later one, is when
/// the digest was known to be the file's (git's racy rule, applied by the state).
package final class StreamedDigests: @unchecked Sendable {
    /// The one store of the process: actions and the state meet here without a path between
    /// them through the engine.
    package static let shared = StreamedDigests()

    /// Beyond this many unclaimed digests the oldest half is dropped: a task that writes files
    /// nobody declares must not grow the store without bound. A dropped digest costs a hash.
    private let limit: Int
    private let lock = NSLock()
    /// Each unclaimed digest with the number of its note, which tells it from an older note of
    /// the same file that `order` still holds.
    private var digests: [FileStatus: (noted: Noted, number: Int)] = [:]
    /// The notes oldest first, taken ones included until the next `compact`: a `take` leaves
    /// its entry here (removing it would cost a search), so the list is swept whenever it holds
    /// twice as many entries as there are unclaimed digests.
    private var order: [(status: FileStatus, number: Int)] = []
    private var notes = 0

    package init(limit: Int = 500_000) {
        self.limit = limit
    }

    /// A digest and the moment it was noted at.
    package struct Noted: Sendable, Equatable {
        /// Lowercase hex XXH3-128 (`XXH128Hasher`).
        package var digest: String
        /// The wall clock as files are stamped (`FileStatus.clockNanoseconds`) when it was noted.
        package var notedAtNanoseconds: Int64

        package init(digest: String, notedAtNanoseconds: Int64) {
            self.digest = digest
            self.notedAtNanoseconds = notedAtNanoseconds
        }
    }

    /// Notes `digest` (lowercase hex XXH3-128) as the contents of the file with `status`.
    package func note(_ digest: String, for status: FileStatus) {
        let noted = Noted(digest: digest, notedAtNanoseconds: FileStatus.clockNanoseconds)
        lock.withLock {
            notes += 1
            digests[status] = (noted, notes)
            order.append((status, notes))
            if order.count > 2 * max(digests.count, 16) { compact() }
            guard digests.count > limit else { return }
            compact()
            let dropped = order.prefix(order.count / 2)
            for entry in dropped { digests[entry.status] = nil }
            order.removeFirst(dropped.count)
        }
    }

    /// Leaves in `order` only the notes whose digests wait to be taken, oldest first. Under `lock`.
    private func compact() {
        order.removeAll { digests[$0.status]?.number != $0.number }
    }

    /// Notes `digest` as the contents of the regular file at `path` as it is now. Call it once
    /// the file is in place (a rename changes the ctime).
    package func note(_ digest: String, forFileAt path: String) {
        guard let status = FileStatus.of(path: path) else { return }
        note(digest, for: status)
    }

    /// The digest noted for `status`, handed out once.
    package func take(_ status: FileStatus) -> Noted? {
        lock.withLock { digests.removeValue(forKey: status)?.noted }
    }

    /// Whether a digest is noted for `status`, left for `take`.
    package func has(_ status: FileStatus) -> Bool {
        lock.withLock { digests[status] != nil }
    }

    /// How many digests wait to be taken.
    package var count: Int { lock.withLock { digests.count } }
}
