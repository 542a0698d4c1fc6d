import Foundation

/// The export's file: written whole to a temporary file beside it, fsynced and renamed over it,
/// so that a reader (or a GitHub push) never sees half a workflow.
enum ExportFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func write(_ text: String, to path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: path).lastPathComponent
        var descriptor: Int32 = -1
        var temporary = ""
        for _ in 0..<100 where descriptor < 0 {
            temporary = "\(folder)/.\(name).flowrun-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if descriptor < 0 && errno != EEXIST { break }
        }
        guard descriptor >= 0 else { throw Failure(description: String(cString: strerror(errno))) }
        var failure: Int32?
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count, failure == nil {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno != EINTR { failure = errno }
            } else {
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw Failure(description: String(cString: strerror(failure)))
        }
    }
}
