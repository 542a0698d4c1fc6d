import Foundation
import Glibc

/// A file that appears at its destination only complete: written to a temporary file in the
/// same folder, fsynced, then renamed over the destination. Until `commit()`, the destination
/// is untouched; `discard()` (or dropping the value) removes the temporary file.
final class AtomicOutputFile {
    let destination: String
    let temporaryPath: String
    /// The temporary file, open for writing; -1 once committed or discarded.
    private(set) var descriptor: Int32

    /// Creates the destination's folder if missing, as `curl --create-dirs` and `mkdir -p` do.
    init(destination: String) throws(CombineFailure) {
        self.destination = destination
        let url = URL(fileURLWithPath: destination)
        let folder = url.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CombineFailure("cannot create folder \(folder) for \(destination): \(error.localizedDescription)")
        }
        // Hidden, so that a glob such as `build/*` in a later task does not pick it up. Not
        // mkstemp: its descriptor is not close-on-exec, and a shell task spawned meanwhile by
        // another thread would inherit it.
        var fd: Int32 = -1
        var path = ""
        for _ in 0..<100 where fd < 0 {
            path = "\(folder)/.\(url.lastPathComponent).flowrun-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 && errno != EEXIST { break }
        }
        guard fd >= 0 else {
            throw CombineFailure("cannot create a temporary file in \(folder): \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        temporaryPath = path
    }

    deinit { discard() }

    /// Writes all of `bytes`, retrying short writes.
    func append(_ bytes: UnsafeRawBufferPointer) throws(CombineFailure) {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw failure("cannot write") }
            offset += written
        }
    }

    /// fsync, the mode a new file gets (mkstemp makes it 0600), rename into place, and fsync
    /// of the folder so that the rename survives a crash.
    func commit() throws(CombineFailure) {
        guard fchmod(descriptor, 0o666 & ~Self.umask) == 0 else { throw failure("cannot set the mode of") }
        guard fsync(descriptor) == 0 else { throw failure("cannot write") }
        let closed = close(descriptor)
        descriptor = -1
        guard closed == 0 else { throw failure("cannot write") }
        guard rename(temporaryPath, destination) == 0 else {
            let failure = CombineFailure("cannot rename \(temporaryPath) to \(destination): \(String(cString: strerror(errno)))")
            unlink(temporaryPath)
            throw failure
        }
        let folder = open(URL(fileURLWithPath: destination).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Removes the temporary file; nothing is left at the destination that was not there.
    func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
    }

    private func failure(_ what: String) -> CombineFailure {
        CombineFailure("\(what) \(destination): \(String(cString: strerror(errno)))")
    }

    /// The process's umask, read without setting it (umask(2) can only set it, and setting it
    /// even for a moment would race with files other threads create): Linux shows it in
    /// /proc/self/status (the common 022 if it cannot be read).
    static let umask: mode_t = {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let value = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        else { return 0o022 }
        return value
    }()
}
