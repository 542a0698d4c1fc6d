import Crypto
import Foundation

/// A file path that the task state file keeps as its digest, for it holds a secret value a
/// task's fields took (`PlannedTask.secretValues`: `inputs: ["in-${UPLOAD_TOKEN}.txt"]` with the
/// token from `--env`, a dotenv file or the process environment). The record and the
/// fingerprints keep digests only; a path kept in clear would put the value on the disk.
///
/// The form is a NUL, which no path holds, then `sha256:` and the hex digest of the path: it is
/// compared with the hidden form of a path now (`StoredTask.stands(for:outputs:)`,
/// `FileDigests`), and never names a file (an older flowrun reading it finds no such file, hashes
/// the task's files again and keeps their paths in clear). Paths in memory stay in clear: they are
/// hidden only as a success is kept (`UpToDateCheck.kept(_:)`).
package enum HiddenPath {
    static let prefix = "\0sha256:"

    /// `path` hidden.
    static func of(_ path: String) -> String {
        var path = path
        return prefix + path.withUTF8 { FileRecord.hex(SHA256.hash(data: $0)) }
    }

    /// Whether the path bytes kept are in the hidden form.
    static func isHidden(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.first == 0
    }

    static func isHidden(_ path: String) -> Bool {
        path.utf8.first == 0
    }

    /// `state` with each file path that holds one of `secrets` hidden.
    static func hiding(_ secrets: [String], in state: TaskState) -> TaskState {
        guard !secrets.isEmpty else { return state }
        var state = state
        func hide(_ files: inout [StampedFile]) {
            for index in files.indices where !isHidden(files[index].path) && secrets.contains(where: { files[index].path.contains($0) }) {
                files[index].path = of(files[index].path)
            }
        }
        hide(&state.inputs)
        hide(&state.outputs)
        return state
    }
}
