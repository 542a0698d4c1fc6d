import Crypto
import Foundation

/// What flowrun last saw of a file: its size, mtime and inode, and the SHA-256 of its contents
/// then. Contents are hashed again only when one of the three changed (as ninja and Bazel do).
package struct FileRecord: Sendable, Equatable {
    package var size: Int64
    package var modifiedNanoseconds: Int64
    package var inode: UInt64
    /// Lowercase hex.
    package var digest: String

    package init(size: Int64, modifiedNanoseconds: Int64, inode: UInt64, digest: String) {
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.inode = inode
        self.digest = digest
    }

    /// The file's size, mtime and inode now; nil if it cannot be read.
    package static func status(of path: String) -> (size: Int64, modifiedNanoseconds: Int64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let nanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return (Int64(info.st_size), nanoseconds, UInt64(info.st_ino))
    }

    /// The SHA-256 of the file's contents, read in chunks; nil if it cannot be read.
    package static func hash(of path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return hex(hasher.finalize())
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
