import Crypto
import Foundation

/// The digest of a workflow file's contents that a run record keeps: `sha256:HEX`.
package enum WorkflowDigest {
    /// The digest of the regular file at `path`, or nil for what is not one (a pipe, which was
    /// read once already) or cannot be read.
    package static func ofFile(at path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let handle = FileHandle(forReadingAtPath: path)
        else { return nil }
        defer { try? handle.close() }
        var hash = SHA256()
        while let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty {
            hash.update(data: chunk)
        }
        return text(of: Array(hash.finalize()))
    }

    /// The digest of `contents`, the bytes the loader read of the file.
    package static func of(contents: [UInt8]) -> String {
        text(of: Array(SHA256.hash(data: contents)))
    }

    /// The record's text for a SHA-256 already taken of the file's contents (the compiled-plan
    /// cache's check of its files takes it: a run does not read and hash the file twice).
    package static func text(of digest: [UInt8]) -> String {
        "sha256:" + digest.withUnsafeBytes { FileRecord.hex($0) }
    }
}
