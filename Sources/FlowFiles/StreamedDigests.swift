import Foundation

/// SHA-256 digests that an action computed while the bytes went by (a download's body, an
/// archive it read, the files it wrote), kept for the up-to-date bookkeeping, so that a file
/// is not read back just to hash it again.
///
/// A digest is tied to the file's identity when it was noted: its inode, size, mtime and ctime.
/// A file changed since then has another identity and finds nothing here: it is hashed as
/// before. A digest is handed out once (`take`), so the store holds only what no check has
/// asked for yet. Each digest keeps the wall-clock moment it was noted at: a file can change
/// again within its file system's timestamp step, so that moment, not a later one, is when
/// the digest was known to be the file's (git's racy rule, applied by the state).
package final class StreamedDigests: @unchecked Sendable {
    /// The one store of the process: actions and the state meet here without a path between
    /// them through the engine.
    package static let shared = StreamedDigests()

    /// What identifies one version of a file's contents, as `stat` gives it.
    package struct Identity: Hashable, Sendable {
        package var inode: UInt64
        package var size: Int64
        package var modifiedNanoseconds: Int64
        package var changedNanoseconds: Int64

        package init(inode: UInt64, size: Int64, modifiedNanoseconds: Int64, changedNanoseconds: Int64) {
            self.inode = inode
            self.size = size
            self.modifiedNanoseconds = modifiedNanoseconds
            self.changedNanoseconds = changedNanoseconds
        }

        init(_ info: stat) {
            self.init(
                inode: UInt64(info.st_ino), size: Int64(info.st_size),
                modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                changedNanoseconds: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
        }

        /// The identity of the regular file at `path` now (symlinks followed); nil otherwise.
        package static func of(path: String) -> Identity? {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return Identity(info)
        }

        /// The identity of the open regular file `descriptor`; nil otherwise.
        package static func of(descriptor: Int32) -> Identity? {
            var info = stat()
            guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            return Identity(info)
        }
    }

    /// Beyond this many unclaimed digests the oldest half is dropped: a task that writes files
    /// nobody declares must not grow the store without bound. A dropped digest costs a hash.
    private let limit: Int
    private let lock = NSLock()
    private var digests: [Identity: Noted] = [:]
    private var order: [Identity] = []

    package init(limit: Int = 500_000) {
        self.limit = limit
    }

    /// A digest and the moment it was noted at.
    package struct Noted: Sendable, Equatable {
        /// Lowercase hex SHA-256.
        package var digest: String
        /// The wall clock (CLOCK_REALTIME) when it was noted, in nanoseconds since 1970.
        package var notedAtNanoseconds: Int64

        package init(digest: String, notedAtNanoseconds: Int64) {
            self.digest = digest
            self.notedAtNanoseconds = notedAtNanoseconds
        }
    }

    /// Notes `digest` (lowercase hex SHA-256) as the contents of the file with `identity`.
    package func note(_ digest: String, for identity: Identity) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let noted = Noted(digest: digest, notedAtNanoseconds: Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))
        lock.withLock {
            if digests.updateValue(noted, forKey: identity) == nil { order.append(identity) }
            guard order.count > limit else { return }
            let dropped = order.prefix(order.count / 2)
            for identity in dropped { digests[identity] = nil }
            order.removeFirst(dropped.count)
        }
    }

    /// Notes `digest` as the contents of the regular file at `path` as it is now. Call it once
    /// the file is in place (a rename changes the ctime).
    package func note(_ digest: String, forFileAt path: String) {
        guard let identity = Identity.of(path: path) else { return }
        note(digest, for: identity)
    }

    /// The digest noted for `identity`, handed out once.
    package func take(_ identity: Identity) -> Noted? {
        lock.withLock { digests.removeValue(forKey: identity) }
    }

    /// How many digests wait to be taken.
    package var count: Int { lock.withLock { digests.count } }
}
