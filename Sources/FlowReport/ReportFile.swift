import FlowFiles
import FlowModel
import Foundation
import Glibc

/// Writes a report file whole or not at all, through `AtomicFile` (the one way flowrun writes a
/// file that must be whole or absent), so that a reader never sees half a report. A device or a FIFO there (`/dev/stdout`, a pipe) is
/// written directly, as `tee` would.
package enum ReportFile {
    /// Refuses, before a run, a destination that cannot be written: a folder, or a path whose
    /// folder does not exist (as `curl -o` does).
    package static func checkDestination(_ path: String) throws(WriteFailure) {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { throw WriteFailure(output: path, code: EISDIR) }
        // The folder the file lands in: a link's target's, a dangling one's too.
        guard let target = LinkTarget.end(of: path) else { throw WriteFailure(output: path, code: ELOOP) }
        let folder = target.pathFolder
        if stat(folder.isEmpty ? "." : folder, &status) != 0 { throw WriteFailure(output: path, code: errno) }
        if status.st_mode & S_IFMT != S_IFDIR { throw WriteFailure(output: path, code: ENOTDIR) }
    }

    package static func write(_ text: String, to path: String) throws(WriteFailure) {
        try checkDestination(path)
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFCHR || status.st_mode & S_IFMT == S_IFIFO {
            let descriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw WriteFailure(output: path, code: errno) }
            defer { close(descriptor) }
            try writeAll(text, to: descriptor, path: path)
            return
        }
        do throws(FileError) {
            try AtomicFile.write(text, to: destination(of: path), access: .shared)
        } catch {
            throw WriteFailure(output: path, code: error.code)
        }
    }

    /// The file a symlink at `path` points to, whose contents are replaced, not the link (as
    /// `--junit` and `--events-file` do), also when it points to nothing yet (the file is made
    /// there, as `tee` makes it); `path` itself when it is no link, or the links loop.
    package static func destination(of path: String) -> String {
        LinkTarget.end(of: path) ?? path
    }

    /// Appends `text` to the file at `path` (created if missing) with `O_APPEND`, so that what
    /// others wrote there stays: GitHub's job summary file.
    package static func append(_ text: String, to path: String) throws(WriteFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, StartupUmask.masking(0o644))
        guard descriptor >= 0 else { throw WriteFailure(output: path, code: errno) }
        var failure: Int32?
        do {
            try writeAll(text, to: descriptor, path: path)
        } catch {
            failure = error.code
        }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if let failure { throw WriteFailure(output: path, code: failure) }
    }

    private static func writeAll(_ text: String, to descriptor: Int32, path: String) throws(WriteFailure) {
        var text = text
        let failure: Int32? = text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw WriteFailure(output: path, code: failure) }
    }
}
