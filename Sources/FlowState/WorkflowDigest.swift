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
        return "sha256:" + hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
