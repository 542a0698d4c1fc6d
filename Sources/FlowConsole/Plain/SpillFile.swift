import FlowFiles
import Foundation
import Glibc

/// A temporary file that holds bytes appended in order and hands them back in chunks: for text
/// held past a small buffer (a GitHub Actions group until its task ends), so that memory stays
/// bounded however much a task prints.
///
/// The file is created in a folder (`$TMPDIR`, else `/tmp`) without a name (`O_TMPFILE`, or
/// unlinked at once where the file system lacks it), so it is gone when the descriptor is
/// closed (at `deinit`), even if flowrun is killed; only its owner may read it (0600).
final class SpillFile {
    /// Bytes read back per `write` of `copy(to:)`.
    static let chunkBytes = 1 << 20

    private let descriptor: Int32
    let folder: String
    /// Bytes appended so far.
    private(set) var count = 0

    /// `$TMPDIR`, or `/tmp` when it is not set, as mktemp(1) does.
    static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var folder = environment["TMPDIR"] ?? ""
        while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        return folder.isEmpty ? "/tmp" : folder
    }

    init(in folder: String) throws(Failure) {
        self.folder = folder
        do {
            descriptor = try TemporaryFile.anonymous(in: folder)
        } catch {
            throw Failure(folder: folder, code: error.code)
        }
    }

    deinit { close(descriptor) }

    /// Appends `bytes` at the end of the file.
    func append(_ bytes: [UInt8]) throws(Failure) {
        let code: Int32? = bytes.withUnsafeBytes { bytes in
            guard var next = bytes.baseAddress else { return nil }
            var remaining = bytes.count
            while remaining > 0 {
                let written = pwrite(descriptor, next, remaining, off_t(count))
                if written < 0 && errno == EINTR { continue }
                // A disk that takes nothing (full) would otherwise make this loop forever.
                guard written > 0 else { return written == 0 ? ENOSPC : errno }
                remaining -= written
                next += written
                count += written
            }
            return nil
        }
        if let code { throw Failure(folder: folder, code: code) }
    }

    /// Hands every byte appended to `output`, in order, in chunks of at most `chunkBytes`.
    func copy(to output: (UnsafeRawBufferPointer) -> Void) throws(Failure) {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkBytes, alignment: 1)
        defer { chunk.deallocate() }
        var offset = 0
        while offset < count {
            let read = pread(descriptor, chunk.baseAddress, min(chunk.count, count - offset), off_t(offset))
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { throw Failure(folder: folder, code: read == 0 ? EIO : errno) }
            output(UnsafeRawBufferPointer(rebasing: chunk[..<read]))
            offset += read
        }
    }

    /// The temporary file could not be created, written or read.
    struct Failure: Error, CustomStringConvertible {
        var folder: String
        var code: Int32
        var description: String { "a temporary file in \(folder): \(String(cString: strerror(code)))" }
    }
}
