import FlowFiles
import Foundation

/// The XXH3-128 of each file an extraction wrote, computed from the bytes as they were written
/// (`WrittenDigest`) and noted in `StreamedDigests` under the file's identity once it was
/// finished, so that the up-to-date bookkeeping does not read the files back.
///
/// An identity holds the ctime, which any later change to the file moves (a write, a chmod, a
/// hard link): a digest noted for it is found only while the file is as it was written. A
/// rename moves the ctime too, so a file that placing the staging folder moves by itself (a
/// merge into an existing `to`) has its digest noted again under its identity there, if its
/// inode, size and mtime are still the ones written. Files inside a folder that is renamed
/// whole keep their ctime. A failed extraction takes its digests back.
final class WrittenFiles {
    private let store: StreamedDigests
    /// Every identity noted, to take back after a failure.
    private var noted: [FileStatus] = []

    init(store: StreamedDigests) {
        self.store = store
    }

    /// Notes `digest` for the regular file whose status, once it was finished, is `info`, if
    /// it holds what was hashed.
    func note(_ digest: WrittenDigest, for info: stat) {
        guard info.st_mode & S_IFMT == S_IFREG, let digest = digest.digest(ofFileSized: Int64(info.st_size)) else { return }
        let identity = FileStatus(info)
        store.note(digest, for: identity)
        noted.append(identity)
    }

    /// The file `before` describes was renamed to `path`: its digest, if one is noted, is noted
    /// again for its identity there.
    func moved(_ before: stat, to path: BytePath) {
        guard before.st_mode & S_IFMT == S_IFREG, let after = FileTree.status(path) else { return }
        let old = FileStatus(before), new = FileStatus(after)
        guard new.isRenamed(from: old), let digest = store.take(old)?.digest else { return }
        store.note(digest, for: new)
        noted.append(new)
    }

    /// Takes back every digest noted: the files are gone.
    func withdraw() {
        for identity in noted { _ = store.take(identity) }
        noted = []
    }
}
