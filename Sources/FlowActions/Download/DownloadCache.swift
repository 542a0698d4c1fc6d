import FlowFiles
import Foundation
import Glibc

/// Downloaded files by content: `ROOT/sha256/HEX`, filled only after a download was verified
/// against a task's `sha256`, and read only by a task giving the same digest.
///
/// A blob appears by rename from a fully written temporary file in the same folder, so that
/// two flowrun processes filling the cache at once never read a partial blob. Private
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

    /// Stores a verified file: a hard link to `path`, the temporary file the caller wrote,
    /// fsynced and is about to rename onto its `to`, so that no byte is copied or written to
    /// disk again (the blob and `to` are then one file: a task that later edits `to` in place
    /// spoils the blob, which its next use finds, as any blob that no longer matches its name,
    /// and deletes). Where no link can be made (the cache on another file system), the bytes
    /// are copied in from the open `descriptor` (see `copy`). The bytes are not hashed again:
    /// the caller hashed them as it wrote the file, a temporary file only it writes. A failure
    /// only means the next run downloads again, so it is returned and otherwise ignored.
    @discardableResult
    package func store(linking path: String, from descriptor: Int32, size: Int64, sha256: String) -> ActionFailure? {
        if lookup(sha256: sha256) != nil { return nil }
        let blob = blobPath(sha256: sha256)
        do {
            try Folders.make(URL(fileURLWithPath: blob).deletingLastPathComponent().path, access: .owner)
        } catch {
            return ActionFailure(error.description, retryable: false)
        }
        // EEXIST: another flowrun stored the same bytes meanwhile.
        if link(path, blob) == 0 || errno == EEXIST { return nil }
        return store(from: descriptor, size: size, sha256: sha256)
    }

    /// Copies a verified file in from its open `descriptor` (its first `size` bytes, read
    /// with offsets, so the descriptor's own is left alone), in the kernel (`copy_file_range`:
    /// no byte through user space, a shared extent where the file system can), through a
    /// temporary file renamed onto the blob, so that no one reads a partial blob. Nor is the
    /// blob fsynced: a blob is checked against its name each time it is used, so one a crash
    /// left short is deleted and downloaded again.
    @discardableResult
    package func store(from descriptor: Int32, size: Int64, sha256: String) -> ActionFailure? {
        if lookup(sha256: sha256) != nil { return nil }
        let blob = blobPath(sha256: sha256)
        let (folder, name) = (URL(fileURLWithPath: blob).deletingLastPathComponent().path, URL(fileURLWithPath: blob).lastPathComponent)
        let copy: Int32, path: String
        do {
            try Folders.make(folder, access: .owner)
            (copy, path) = try TemporaryFile.create(in: folder, for: name, access: .owner)
        } catch {
            return ActionFailure(error.description, retryable: false)
        }
        var failure = Self.copy(descriptor, into: copy, size: size)
        if close(copy) != 0, errno != EINTR, failure == nil { failure = errno }
        if failure == nil, rename(path, blob) != 0 { failure = errno }
        guard let failure else { return nil }
        unlink(path)
        return ActionFailure("cannot store \(blob): \(String(cString: strerror(failure)))", retryable: false)
    }

    /// Copies `size` bytes from offset 0 of `source` to `target`; the errno of a failure.
    private static func copy(_ source: Int32, into target: Int32, size: Int64) -> Int32? {
        var offset: Int64 = 0, targetOffset: Int64 = 0
        if let copyFileRange {
            while offset < size {
                let remaining = Int(size - offset)
                let copied = copyFileRange(source, &offset, target, &targetOffset, remaining, 0)
                if copied < 0, errno == EINTR { continue }
                if copied > 0 { continue }
                if copied == 0 { return EIO }  // the file is shorter than it was written
                // Not between these two file systems or in this kernel: read and write below.
                guard errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP else { return errno }
                break
            }
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while offset < size {
            let count = pread(source, buffer.baseAddress!, min(buffer.count, Int(size - offset)), off_t(offset))
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return count == 0 ? EIO : errno }
            var written = 0
            while written < count {
                let result = pwrite(target, buffer.baseAddress! + written, count - written, off_t(targetOffset))
                if result < 0, errno == EINTR { continue }
                if result <= 0 { return result == 0 ? ENOSPC : errno }
                written += result
                targetOffset += Int64(result)
            }
            offset += Int64(count)
        }
        return nil
    }

    /// Linux's copy_file_range(2), which the Glibc module does not export; nil elsewhere.
    private static let copyFileRange: (@convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int)? = {
        guard let symbol = dlsym(nil, "copy_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int).self)
    }()

    /// Deletes a blob whose bytes no longer match its name.
    package func evict(sha256: String) {
        unlink(blobPath(sha256: sha256))
    }
}
