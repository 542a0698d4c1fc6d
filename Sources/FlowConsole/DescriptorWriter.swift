#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Writes whole buffers to a file descriptor, each with one `write(2)` where the kernel allows.
///
/// Each call hands the kernel a complete line (or a complete block of lines), so that output
/// written to the same pipe or file by other writers can never land inside one of our lines.
/// A short write (a full pipe, a signal) is finished by further calls; `EINTR` is retried.
/// Errors such as `EPIPE` (the reader went away) drop the buffer: a console must never stop a
/// run. Note that `EPIPE` needs `SIGPIPE` ignored, or the process dies first.
public struct DescriptorWriter: Sendable {
    public let descriptor: Int32
    /// Whether `close()` closes the descriptor (only for files this writer opened).
    private let ownsDescriptor: Bool
    /// Keeps a `FileHandle` alive, and with it its descriptor, for as long as the writer.
    private let handle: FileHandle?

    /// Writes to `descriptor`, which the caller keeps open and closes.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        self.ownsDescriptor = false
        self.handle = nil
    }

    /// Writes to the descriptor of `fileHandle`, such as `FileHandle.standardOutput`.
    public init(fileHandle: FileHandle) {
        self.descriptor = fileHandle.fileDescriptor
        self.ownsDescriptor = false
        self.handle = fileHandle
    }

    /// Creates or truncates the file at `path` (mode 0644); `close()` closes it.
    public init(creatingFileAt path: String) throws(OpenError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw OpenError(path: path, code: errno) }
        self.descriptor = descriptor
        self.ownsDescriptor = true
        self.handle = nil
    }

    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard var next = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            #if canImport(Glibc)
            let written = Glibc.write(descriptor, next, remaining)
            #else
            let written = Darwin.write(descriptor, next, remaining)
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            remaining -= written
            next += written
        }
    }

    /// Closes the descriptor if this writer opened it; otherwise does nothing.
    public func close() {
        guard ownsDescriptor else { return }
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }

    /// The file could not be created.
    public struct OpenError: Error, CustomStringConvertible {
        public var path: String
        public var code: Int32
        public var description: String { "cannot create \(path): \(String(cString: strerror(code)))" }
    }
}
