import Foundation

/// Folders that files were renamed into, made durable together by one fsync each (`flush()`)
/// rather than one per file: 200 downloads into one folder cost 200 fsyncs of their data and
/// one of the folder, not 400.
///
/// What a writer that defers keeps: each file is fsynced before its rename, so after a crash
/// the name holds either the old contents or the whole new ones, never a part; only the rename
/// itself may be lost until the flush (the name then still shows the old file, or none).
package final class DeferredFolderSyncs: @unchecked Sendable {
    private let lock = NSLock()
    /// By the path's bytes: Swift's `==` takes "caf\u{E9}" and "cafe\u{301}" for one string,
    /// yet they are two folders.
    private var folders: [[UInt8]: String] = [:]

    package init() {}

    /// Notes that a file was renamed into `folder`.
    package func add(_ folder: String) {
        lock.withLock { folders[Array(folder.utf8)] = folder }
    }

    /// Fsyncs each folder noted since the last flush, once.
    package func flush() {
        let pending = lock.withLock {
            defer { folders = [:] }
            return folders
        }
        for folder in pending.values.sorted() { Folders.synchronize(folder) }
    }

    /// How many folders wait for their fsync.
    package var count: Int { lock.withLock { folders.count } }
}
