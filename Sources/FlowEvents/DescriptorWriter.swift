import FlowFiles
import FlowModel
import Foundation
import Glibc

/// Writes whole buffers to a file descriptor, each with one `write(2)` where the kernel allows.
///
/// Each call hands the kernel a complete line (or a complete block of lines), so that output
/// written to the same pipe or file by other writers can never land inside one of our lines.
/// A short write (a full pipe, a signal) is finished by further calls; `EINTR` is retried.
///
/// The first error (`ENOSPC`, `EIO`, `EPIPE`: the reader went away) is kept as `failure`, told
/// once to `onFailure`, and every later write is dropped: a console must never stop a run, and
/// a full disk must not get one message per line. A regular file is cut back to the end of its
/// last whole buffer, so that a reader never finds half a line. Note that `EPIPE` needs
/// `SIGPIPE` ignored, or the process dies first.
package struct DescriptorWriter: ByteSink, Sendable {
    package let descriptor: Int32
    /// What messages call the output: its path, or "standard output".
    package let name: String
    /// Whether `close()` closes the descriptor (only for files this writer opened).
    private let ownsDescriptor: Bool
    /// Shared by the copies of this writer, so that a failure seen by one stops them all.
    private let failureState = LockedState<WriteFailure?>(nil)
    private let onFailure: (@Sendable (WriteFailure) -> Void)?

    /// Writes to `descriptor`, which the caller keeps open and closes. `name` defaults to
    /// "standard output" or "standard error" for descriptors 1 and 2.
    package init(descriptor: Int32, name: String? = nil, onFailure: (@Sendable (WriteFailure) -> Void)? = nil) {
        self.descriptor = descriptor
        self.name = name ?? Self.defaultName(of: descriptor)
        self.ownsDescriptor = false
        self.onFailure = onFailure
    }

    /// Writes to `descriptor`, which `close()` closes: a file the caller opened for this writer.
    package init(owning descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        self.ownsDescriptor = true
        self.onFailure = nil
    }

    /// Creates or truncates the file at `path` (mode 0644), or opens the device or FIFO there;
    /// `close()` closes it.
    package init(creatingFileAt path: String) throws(OpenError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, StartupUmask.masking(0o644))
        guard descriptor >= 0 else { throw OpenError(path: path, code: errno) }
        self.descriptor = descriptor
        self.name = path
        self.ownsDescriptor = true
        self.onFailure = nil
    }

    private static func defaultName(of descriptor: Int32) -> String {
        switch descriptor {
        case STDOUT_FILENO: "standard output"
        case STDERR_FILENO: "standard error"
        default: "file descriptor \(descriptor)"
        }
    }

    /// The first write (or `synchronize`, or `close`) that failed, if one did.
    package var failure: WriteFailure? { failureState.withLock { $0 } }

    package func write(_ bytes: UnsafeRawBufferPointer) {
        guard var next = bytes.baseAddress, failure == nil else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = Glibc.write(descriptor, next, remaining)
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK {
                    // A descriptor someone else made non-blocking: wait until it takes more.
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                    continue
                }
                let partial = bytes.count - remaining
                if partial > 0 {
                    // Fails harmlessly (ESPIPE, EINVAL) on what is not a regular file.
                    let end = lseek(descriptor, 0, SEEK_CUR)
                    if end >= partial { _ = ftruncate(descriptor, end - off_t(partial)) }
                }
                fail(code)
                return
            }
            remaining -= written
            next += written
        }
    }

    /// Flushes what was written to the disk (`fsync`): a file renamed into place afterwards is
    /// whole even after a crash.
    package func synchronize() {
        guard failure == nil else { return }
        if fsync(descriptor) != 0 { fail(errno) }
    }

    /// Closes the descriptor if this writer opened it; otherwise does nothing. A failed close
    /// (a network file system reports a lost write there) is a failure too.
    package func close() {
        guard ownsDescriptor else { return }
        let closed = Glibc.close(descriptor)
        if closed != 0, errno != EINTR { fail(errno) }
    }

    private func fail(_ code: Int32) {
        let failure = WriteFailure(output: name, code: code)
        let first: Bool = failureState.withLock { state in
            guard state == nil else { return false }
            state = failure
            return true
        }
        if first { onFailure?(failure) }
    }

    /// The file could not be created.
    package struct OpenError: Error, CustomStringConvertible {
        package var path: String
        package var code: Int32

        package init(path: String, code: Int32) {
            self.path = path
            self.code = code
        }

        package var description: String { "cannot create \(path): \(String(cString: strerror(code)))" }
    }
}
