import Crypto
import FlowFiles
import Foundation

/// What flowrun last saw of a file: its status (size, mtime, ctime, inode), the XXH3-128 of its
/// contents then (`XXH128Hasher`), and when it looked. Contents are hashed again when the status changed (as
/// ninja and Bazel do), or when the file had changed too shortly before the look for its
/// status to tell a later change (`FileStatus.isRacy`, git's racy rule).
package struct FileRecord: Sendable, Equatable {
    package var size: Int64
    package var modifiedNanoseconds: Int64
    package var changedNanoseconds: Int64
    package var inode: UInt64
    /// Lowercase hex XXH3-128.
    package var digest: String
    /// The wall clock just before the file was stat'ed and hashed; 0 if unknown (never trusted).
    package var hashedAtNanoseconds: Int64

    package init(
        size: Int64, modifiedNanoseconds: Int64, changedNanoseconds: Int64 = 0, inode: UInt64, digest: String,
        hashedAtNanoseconds: Int64 = 0
    ) {
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedNanoseconds = changedNanoseconds
        self.inode = inode
        self.digest = digest
        self.hashedAtNanoseconds = hashedAtNanoseconds
    }

    package init(status: FileStatus, digest: String, hashedAtNanoseconds: Int64) {
        self.init(
            size: status.size, modifiedNanoseconds: status.modifiedNanoseconds, changedNanoseconds: status.changedNanoseconds,
            inode: status.inode, digest: digest, hashedAtNanoseconds: hashedAtNanoseconds)
    }

    package var status: FileStatus {
        FileStatus(size: size, modifiedNanoseconds: modifiedNanoseconds, changedNanoseconds: changedNanoseconds, inode: inode)
    }

    /// Whether `digest` is still the file's, given its status now: the status is the one
    /// recorded, and the file had settled when it was hashed.
    package func stands(for now: FileStatus) -> Bool {
        now == status && !status.isRacy(at: hashedAtNanoseconds)
    }

    /// The file's status now; nil if it cannot be read.
    package static func status(of path: String) -> FileStatus? {
        LocalFileSystem().status(of: path)
    }

    /// The XXH3-128 of the file's contents, read in chunks; nil if it cannot be read, or once
    /// `stop` is requested (asked between chunks: a large input must not hold up Ctrl-C).
    package static func hash(of path: String, until stop: SetOnceFlag? = nil) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let hasher = XXH128Hasher()
        // Left uninitialized: `read` fills what is hashed, and zeroing 64 KiB cost ~65 K
        // instructions a file, most of the hash of a small one (a download's settled output).
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count == 0 { break }
            if stop?.isSet == true { return nil }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        return hasher.finalize()
    }

    /// The digest of what is not a regular file's contents: a link's target text, as tar keeps
    /// it (a link that leads nowhere, or to a folder), or the word for a folder; nil otherwise.
    static func hashOfEntry(at path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let text: [UInt8]
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            var target = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(path, &target, target.count)
            guard count >= 0, count < target.count else { return nil }
            text = Array("symlink\0".utf8) + target[..<count]
        case S_IFDIR:
            text = Array("folder\0".utf8)
        default:
            return nil
        }
        return text.withUnsafeBytes { XXH128Hasher.hash($0) }
    }

    /// Lowercase hex of a SHA-256 (fingerprints, `TaskFingerprint`), written straight into the
    /// string's storage: fingerprints take several a task.
    static func hex(_ digest: SHA256.Digest) -> String {
        digest.withUnsafeBytes { hex($0) }
    }

    /// The same for raw digest bytes (the task state file keeps them raw).
    static func hex(_ raw: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: raw.count * 2) { text in
            for (index, byte) in raw.enumerated() {
                text[2 * index] = hexDigit(byte >> 4)
                text[2 * index + 1] = hexDigit(byte & 15)
            }
            return raw.count * 2
        }
    }

    static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x57 + value
    }
}
