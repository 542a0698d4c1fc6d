import FlowFiles
import FlowModel
import Foundation
import Glibc

/// The temporary file a download writes beside its destination, hashed as it grows, renamed
/// onto the destination only once complete and verified.
///
/// Not thread-safe: one transfer uses it from one serial queue at a time. It outlives a failed
/// attempt, so that the next one can resume where it stopped; `remove()` ends it.
package final class PartialFile: @unchecked Sendable {
    /// A random temporary name, or a resumable file's fixed one (`PartialFile+Resume`).
    package let path: String
    package let destination: String
    /// Where every read, write and rename of this file happens, in order, across attempts.
    package let queue = DispatchQueue(label: "flowrun.download-file")
    package private(set) var size: Int64 = 0
    /// The response's ETag, else its Last-Modified: what a resumed request's If-Range sends.
    package var validator: String?
    /// The whole file's length as the response that began it gave it: what a resumed 206's
    /// total must be.
    package var expectedSize: Int64?
    private(set) var descriptor: Int32
    /// Whole blocks written past the page cache, from offset 0 until `settle()`; nil where
    /// the file system has no `O_DIRECT`, or once the file was settled or resumed.
    private var direct: DirectWrites?
    /// Whether the bytes' SHA-256 is computed too (`BodyDigests`): for a task with `sha256:`.
    package let withSHA256: Bool
    /// Touched on `hashing` only.
    private var hasher: BodyHasher
    private var hashedSize: Int64 = 0
    /// `hasher`'s XXH3-128 state, for `hashContent` on the thread that stages the body.
    private var content: XXH128Hasher
    /// For a file under the fixed names a later flowrun finds (`PartialFile+Resume`): the names,
    /// and the digest of the URL its record is written for; nil for a random temporary.
    var resume: (names: ResumeNames, urlDigest: String)?
    /// False once this file's record is known gone (removed, none written since): it is not
    /// removed again, a system call each small download saved.
    var recordMayExist = true
    /// Bytes an earlier flowrun left, not yet hashed (`hashKeptBytes()`).
    package internal(set) var keptBytesUnhashed = false
    /// Whether the bytes held came from an earlier flowrun: a 416 then starts over at once.
    package internal(set) var keptFromEarlierRun = false

    /// Creates `.NAME.flowrun-RANDOM` (a `TemporaryFile`) in the destination's folder, making
    /// the folder if needed (as `curl --create-dirs`). `access`: `.owner` for the cache.
    package init(destination: String, access: FileAccess = .shared, withSHA256: Bool) throws(ActionFailure) {
        self.destination = destination
        self.withSHA256 = withSHA256
        hasher = BodyHasher(withSHA256: withSHA256)
        content = hasher.content
        let (folder, name) = FilePathParts.split(destination)
        do {
            try Folders.make(folder, access: access)
            (descriptor, path) = try TemporaryFile.create(in: folder, for: name, access: access)
        } catch {
            throw ActionFailure(error.description, retryable: false)
        }
        direct = DirectWrites(descriptor: descriptor, offset: 0)
    }

    /// A file already open and locked at `path`, holding `size` bytes (written past the page
    /// cache only when it is empty); its descriptor is at its end.
    init(descriptor: Int32, path: String, destination: String, size: Int64, withSHA256: Bool) {
        self.withSHA256 = withSHA256
        hasher = BodyHasher(withSHA256: withSHA256)
        content = hasher.content
        self.descriptor = descriptor
        self.path = path
        self.destination = destination
        self.size = size
        direct = size == 0 ? DirectWrites(descriptor: descriptor, offset: 0) : nil
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Appends bytes, hashing them on the hashing queue while they are written here.
    package func append(_ bytes: UnsafeRawBufferPointer) throws(ActionFailure) {
        hashing.sync { hash(bytes) }
        try appendPrehashed(bytes)
    }

    /// Where the digest is updated, off the network thread and off this file's queue, so that
    /// receiving, hashing and writing a body run at once. Parts must be handed to it in the
    /// order they are written; `sha256`, `restart()` and `finish` wait for what it holds.
    package let hashing = DispatchQueue(label: "flowrun.download-hash")

    /// Adds bytes to the digest; call on `hashing` only. They never touch the digest at once
    /// with a restart: body parts come only after the head's `restart()` is done, and
    /// `finish()` only after the last part.
    package func hash(_ bytes: UnsafeRawBufferPointer) {
        dispatchPrecondition(condition: .onQueue(hashing))
        hasher.update(bytes)
        hashedSize += Int64(bytes.count)
    }

    /// Adds bytes to the SHA-256 only, on `hashing`, when `hashContent` takes them as they are
    /// received: a download with `sha256:` then hashes on two threads, SHA-256 on the one
    /// (0.65-0.75 s a GiB here) and XXH3 on the network thread, instead of both on one, which
    /// was the transfer's slowest.
    package func hashSHA256(_ bytes: UnsafeRawBufferPointer) {
        dispatchPrecondition(condition: .onQueue(hashing))
        hasher.updateSHA256(bytes)
        hashedSize += Int64(bytes.count)
    }

    /// Adds bytes to the XXH3-128 only, from the one thread that stages the body
    /// (`HTTPTransfer`), as they arrive: the bytes that `hashSHA256` takes, in the same order,
    /// so that both digests are of the bytes written (every byte staged is appended, or the
    /// transfer fails). Between the body's head (after any `restart()`) and `finish`.
    package func hashContent(_ bytes: UnsafeRawBufferPointer) {
        content.update(bytes)
    }

    /// Appends bytes that were handed to `hashing` (in the same order). With `O_DIRECT` the
    /// last partial block waits in memory until `settle()`; `size` counts it.
    package func appendPrehashed(_ bytes: UnsafeRawBufferPointer) throws(ActionFailure) {
        do throws(DirectWrites.WriteError) {
            if let direct {
                var rest = bytes
                while !rest.isEmpty {
                    let taken = try direct.take(rest)
                    rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
                }
            } else {
                try DirectWrites.writeAll(descriptor, bytes)
            }
        } catch {
            throw writeFailure(error.code)
        }
        size += Int64(bytes.count)
        if direct == nil { startWriteback() }
    }

    /// Writes the bytes still waiting for a whole block, so that the file on disk holds every
    /// byte appended: before it is checked, renamed, or kept for a later attempt to resume
    /// (whose `Range` starts at `size`). Later appends go through the page cache.
    package func settle() throws(ActionFailure) {
        guard let direct, size > 0 else { return }
        self.direct = nil
        do throws(DirectWrites.WriteError) {
            try direct.finishDirect()
        } catch {
            throw writeFailure(error.code)
        }
    }

    /// Whether whole blocks are being written past the page cache (for tests).
    package var writesDirect: Bool { direct != nil }

    private func writeFailure(_ code: Int32) -> ActionFailure {
        ActionFailure("cannot write \(destination): \(String(cString: strerror(code)))", retryable: false)
    }

    /// Where the writeback `startWriteback` asked for ends.
    private var writebackStarted: Int64 = 0
    private static let writebackStep: Int64 = 8 << 20

    /// Asks the kernel to start writing each full 8 MiB behind the download as it goes, without
    /// waiting for it, so that the fsync before the rename has little left to flush.
    private func startWriteback() {
        guard let syncFileRange = Self.syncFileRange, size - writebackStarted >= Self.writebackStep else { return }
        _ = syncFileRange(descriptor, writebackStarted, size - writebackStarted, 2)  // SYNC_FILE_RANGE_WRITE
        writebackStarted = size
    }

    /// Linux's sync_file_range(2), which the Glibc module does not export (it is a GNU
    /// extension); nil elsewhere, where the final fsync does all the flushing.
    private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
        #if os(Linux)
        guard let symbol = dlsym(nil, "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// Empties the file, for a server that sends the whole body again.
    package func restart() throws(ActionFailure) {
        direct?.discard()
        direct = nil
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw ActionFailure("cannot truncate \(path): \(String(cString: strerror(errno)))", retryable: false)
        }
        direct = DirectWrites(descriptor: descriptor, offset: 0)
        hashing.sync {
            hasher = BodyHasher(withSHA256: withSHA256)
            content = hasher.content
            hashedSize = 0
        }
        size = 0
        writebackStarted = 0
        validator = nil
        expectedSize = nil
        keptBytesUnhashed = false
        keptFromEarlierRun = false
        forgetResumeRecord()
    }

    /// The digests of what was written so far, once every part handed to `hashing` is in them.
    var digests: BodyDigests {
        hashing.sync { hasher.finalize() }
    }

    /// The digests of the whole file, checked to cover as many bytes as were written: a part
    /// hashed but not written (or the reverse) would make them the digests of other bytes.
    private func wholeDigests() throws(ActionFailure) -> BodyDigests {
        let (digests, hashed) = hashing.sync { (hasher.finalize(), hashedSize) }
        guard hashed == size else {
            throw ActionFailure("cannot write \(destination): \(hashed.counted("byte")) hashed, \(size) written", retryable: false)
        }
        return digests
    }

    /// Checks the SHA-256 (the file must be made `withSHA256` for an `expectedSHA256`), flushes the file to disk and renames it onto the destination, then
    /// flushes the folder so that the rename survives a crash, or notes it in `folderSyncs`
    /// for one flush later. With `noting`, the XXH3-128 is handed to the up-to-date bookkeeping
    /// (`StreamedDigests`), so that it does not read the file back. On failure the file is
    /// removed.
    /// With `cache`, the verified bytes are stored there too, linked to this file before its
    /// rename (nobody else can have written it), so they are neither read back, hashed nor
    /// written again.
    package func finish(
        expectedSHA256: String?, folderSyncs: DeferredFolderSyncs? = nil, noting: Bool = false, cache: DownloadCache? = nil
    ) throws(ActionFailure) -> BodyDigests {
        precondition(expectedSHA256 == nil || withSHA256, "a sha256 to check, on a file that does not compute it")
        let digests: BodyDigests
        do throws(ActionFailure) {
            try settle()
            digests = try wholeDigests()
        } catch {
            remove()
            throw error
        }
        if let expected = expectedSHA256, let got = digests.sha256, expected.lowercased() != got {
            remove()
            throw ActionFailure("sha256 mismatch for \(destination): expected \(expected.lowercased()), got \(got)", retryable: false)
        }
        // fdatasync: the bytes, and the size and layout needed to read them, are on disk before
        // the rename, which is what the crash promise needs; the modification time is not
        // waited for (after a crash it only sends the up-to-date check to look again). On
        // ext4 it waits only for the journal commit holding the file's allocation, which the
        // commits of other files at once often took already, instead of forcing a new one.
        guard fdatasync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            remove()
            throw ActionFailure("cannot write \(destination): \(reason)", retryable: false)
        }
        if let cache, let sha256 = digests.sha256 { cache.store(linking: path, from: descriptor, size: size, sha256: sha256) }
        let written = FileStatus.of(descriptor: descriptor)
        if resume != nil { try placeFromResumeName() } else { try closeAndPlace() }
        let folder = FilePathParts.folder(of: destination)
        if let folderSyncs { folderSyncs.add(folder) } else { Folders.synchronize(folder) }
        if noting { Self.note(digests.content, of: written, placedAt: destination) }
        return digests
    }

    /// Closes the file, then renames it onto `to`. A failed rename names `to` alone (`Is a
    /// directory`), as curl names its `-o`: the temporary file is gone by then.
    private func closeAndPlace() throws(ActionFailure) {
        let closed = close(descriptor)
        let closeCode = errno
        descriptor = -1
        guard closed == 0 || closeCode == EINTR else {
            unlink(path)
            throw ActionFailure("cannot write \(destination): \(String(cString: strerror(closeCode)))", retryable: false)
        }
        guard rename(path, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw ActionFailure("cannot write \(destination): \(reason)", retryable: false)
        }
    }

    /// Renames a resumable file from its fixed name onto `to` while its lock is still held,
    /// then closes it: a flowrun that opened the fixed name before cannot claim the file that
    /// became `to`, and one after finds a new file there. Its record goes first. One rename,
    /// where a detour through a random name before the close took two. The bytes are on disk
    /// by then (`fdatasync`), so a failed close cannot lose them.
    private func placeFromResumeName() throws(ActionFailure) {
        forgetResumeRecord()
        resume = nil
        guard rename(path, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            close(descriptor)
            descriptor = -1
            throw ActionFailure("cannot write \(destination): \(reason)", retryable: false)
        }
        close(descriptor)
        descriptor = -1
    }

    /// Notes the digest for the file now at `destination` (the rename changed its ctime) if it
    /// is still the file written: the same inode, size and mtime, so that a write by someone
    /// else since the rename is never given these bytes' digest.
    private static func note(_ digest: String, of written: FileStatus?, placedAt destination: String) {
        guard let written, let placed = FileStatus.of(path: destination), placed.inode == written.inode,
            placed.size == written.size, placed.modifiedNanoseconds == written.modifiedNanoseconds
        else { return }
        StreamedDigests.shared.note(digest, for: placed)
    }

    /// Closes and deletes the temporary file; harmless once it is renamed or removed.
    package func remove() {
        direct?.discard()
        direct = nil
        guard descriptor >= 0 else { return }
        forgetResumeRecord()
        // Unlinked while its lock is held: another flowrun that takes the fixed name next
        // makes a new file there, rather than having this one removed under it.
        unlink(path)
        close(descriptor)
        descriptor = -1
    }

    static func message(of error: any Error) -> String {
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return error.localizedDescription
    }
}
