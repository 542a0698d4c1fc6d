import Foundation
import Glibc

/// Downloaded files by content: `ROOT/sha256/HEX`, filled only after a download was verified
/// against a task's `sha256`, and read only by a task giving the same digest.
///
/// A blob appears by rename from a fully written, fsynced temporary file in the same folder,
/// so that two flowrun processes filling the cache at once never read a partial blob. Private
/// to its user (0600 blobs, 0700 folders): a download may be a secret.
package struct DownloadCache: Sendable {
    package let root: String

    package init(root: String) {
        self.root = root
    }

    /// `$FLOWRUN_CACHE_DIR`, else `$XDG_CACHE_HOME/flowrun`, else `~/.cache/flowrun`.
    package init?(environment: [String: String]) {
        if let dir = environment["FLOWRUN_CACHE_DIR"], !dir.isEmpty {
            root = dir
        } else if let dir = environment["XDG_CACHE_HOME"], !dir.isEmpty {
            root = dir + "/flowrun"
        } else if let home = environment["HOME"], !home.isEmpty {
            root = home + "/.cache/flowrun"
        } else {
            return nil
        }
    }

    package func blobPath(sha256: String) -> String { "\(root)/sha256/\(sha256.lowercased())" }

    /// The blob's path when the cache has it.
    package func lookup(sha256: String) -> String? {
        let path = blobPath(sha256: sha256)
        return access(path, R_OK) == 0 ? path : nil
    }

    /// Copies a verified file in; a failure only means the next run downloads again, so it is
    /// reported to the caller and otherwise ignored.
    @discardableResult
    package func store(_ path: String, sha256: String) -> DownloadFailure? {
        if lookup(sha256: sha256) != nil { return nil }
        let blob = blobPath(sha256: sha256)
        do {
            let partial = try PartialFile(destination: blob, access: .owner)
            return partial.queue.sync {
                let copy = LocalCopy()
                let result = copy.copyNow(from: path, into: partial)
                switch result {
                case .success:
                    do throws(DownloadFailure) {
                        _ = try partial.finish(expectedSHA256: sha256)
                        return nil
                    } catch {
                        return error
                    }
                case .failure(let error):
                    partial.remove()
                    return error
                }
            }
        } catch {
            return error
        }
    }

    /// Deletes a blob whose bytes no longer match its name.
    package func evict(sha256: String) {
        unlink(blobPath(sha256: sha256))
    }
}
