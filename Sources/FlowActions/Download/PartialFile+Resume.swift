import FlowFiles
import Foundation
import Glibc

/// Resuming across runs, as `curl -C -` does: an http download's partial file has a fixed name
/// beside `to` (`ResumeNames`), and once a response gave a validator, a `ResumeRecord` beside
/// it. A flowrun killed mid-transfer (SIGKILL, a power cut) leaves both; the next run's attempt
/// asks for the rest with Range and If-Range, hashes the kept bytes first so that the whole
/// file is verified, and starts over when the record is damaged or for another URL, or when
/// the server says the file changed. The partial file is never renamed onto `to` unless whole.
extension PartialFile {
    /// The partial file for an http download of `url` to `destination`: the one an earlier
    /// flowrun left under the fixed name (kept when its record is sound and for this URL, else
    /// emptied), or a new one there; a random temporary (no resume) when the fixed name cannot
    /// be had: another live flowrun holds it, the name is too long, something else is there.
    static func resumable(destination: String, url: String, withSHA256: Bool) throws(ActionFailure) -> PartialFile {
        let folder = FilePathParts.folder(of: destination)
        guard let names = ResumeNames(destination: destination) else { return try PartialFile(destination: destination, withSHA256: withSHA256) }
        do {
            try Folders.make(folder, access: .shared)
        } catch {
            throw ActionFailure(error.description, retryable: false)
        }
        LeftoverSweep.shared.sweepOnce(folder)
        guard let descriptor = claim(names.partial) else { return try PartialFile(destination: destination, withSHA256: withSHA256) }
        let urlDigest = ResumeRecord.digest(url)
        var kept = Int64(lseek(descriptor, 0, SEEK_END))
        let record = kept > 0 ? readRecord(names.record) : nil
        if kept < 0 || (kept > 0 && !(record.map { $0.urlDigest == urlDigest && kept < ($0.expectedSize ?? Int64.max) } ?? false)) {
            // Bytes with no sound record of this URL: nothing says what they are a part of.
            guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(names.partial)
                close(descriptor)
                throw ActionFailure("cannot truncate \(names.partial): \(reason)", retryable: false)
            }
            unlink(names.record)
            kept = 0
        }
        let file = PartialFile(descriptor: descriptor, path: names.partial, destination: destination, size: kept, withSHA256: withSHA256)
        file.resume = (names, urlDigest)
        if kept > 0, let record {
            file.validator = record.validator
            file.expectedSize = record.expectedSize
            file.keptBytesUnhashed = true
            file.keptFromEarlierRun = true
        }
        return file
    }

    /// Opens and locks the fixed name: nil when another flowrun holds it, or it is not a plain
    /// file of this user's with one link (a cache blob linked there must not be truncated).
    private static func claim(_ path: String) -> Int32? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, FileAccess.shared.fileMode)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard OwnerLock.claimIfFree(descriptor, at: path), fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
            status.st_uid == geteuid(), status.st_nlink == 1
        else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// The record at `path`, or nil when there is none or it is damaged.
    private static func readRecord(_ path: String) -> ResumeRecord? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0, count < bytes.count, let text = String(validating: bytes[..<count], as: UTF8.self) else { return nil }
        return ResumeRecord(text: text)
    }

    /// Hashes the bytes an earlier flowrun left, so that the digest covers the whole file;
    /// on the file's queue, before the attempt's request. Unreadable bytes are dropped.
    func hashKeptBytes() throws(ActionFailure) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard keptBytesUnhashed else { return }
        keptBytesUnhashed = false
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < size {
            let count = pread(descriptor, buffer.baseAddress!, min(chunk, Int(size - offset)), off_t(offset))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return try restart() }
            hashing.sync { hash(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
            offset += Int64(count)
        }
    }

    /// A body the server says is at most this long gets no record: cut by a kill, it is fetched
    /// again whole, which costs less than creating, writing and removing a record beside every
    /// small download did (bench/README.md, s38-dl); curl keeps none at all.
    static let longestUnrecordedBody: Int64 = 2 << 20

    /// Writes the record of the validator the response gave, so that a later flowrun can
    /// resume; removes it when there is none to write, or the body is short. A record that
    /// cannot be written only costs that resume, so its failure is not the task's.
    func keepResumeRecord() {
        guard let resume else { return }
        guard let validator, (expectedSize ?? .max) > Self.longestUnrecordedBody,
            let text = ResumeRecord(urlDigest: resume.urlDigest, validator: validator, expectedSize: expectedSize).text
        else {
            return forgetResumeRecord()
        }
        recordMayExist = true
        let descriptor = open(resume.names.record, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, FileAccess.owner.fileMode)
        guard descriptor >= 0 else { return }
        var written = Array(text.utf8).withUnsafeBytes { bytes in (try? DirectWrites.writeAll(descriptor, bytes)) != nil }
        if close(descriptor) != 0 && errno != EINTR { written = false }
        if !written { unlink(resume.names.record) }
    }

    /// Removes the record: the bytes no longer belong to the validator it names.
    func forgetResumeRecord() {
        guard let resume, recordMayExist else { return }
        unlink(resume.names.record)
        recordMayExist = false
    }
}
