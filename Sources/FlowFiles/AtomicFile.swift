import Glibc

/// A file that appears at its destination only whole: written to a `TemporaryFile` beside it,
/// fsynced, then renamed over it, and the folder fsynced so that the rename survives a crash.
/// Until `commit()` the destination is untouched; `discard()` (or dropping the value) removes
/// the temporary file, so a failure leaves nothing half-done.
///
/// Not thread-safe: one writer uses it at a time.
package final class AtomicFile {
    package let destination: String
    package let temporaryPath: String
    /// The temporary file, open for reading and writing; -1 once committed or discarded.
    package private(set) var descriptor: Int32

    /// Makes the destination's folder if it is missing (`mkdir -p`, as `curl --create-dirs`),
    /// with `access`'s folder mode for the folders it makes.
    package init(destination: String, access: FileAccess) throws(FileError) {
        self.destination = destination
        let (folder, name) = Self.split(destination)
        try Folders.make(folder, access: access)
        (descriptor, temporaryPath) = try TemporaryFile.create(in: folder, for: name, access: access)
    }

    deinit { discard() }

    /// Writes all of `bytes`, finishing short writes and retrying `EINTR`; a write that takes
    /// nothing is `ENOSPC`, never a loop.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw FileError("write", destination, code: written == 0 ? ENOSPC : errno) }
            offset += written
        }
    }

    package func write(_ text: String) throws(FileError) {
        var text = text
        var failure: FileError?
        text.withUTF8 { bytes in
            do throws(FileError) {
                try write(UnsafeRawBufferPointer(bytes))
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// fsync, close (a network file system may report a lost write only there), rename over the
    /// destination, fsync the folder. Any failure removes the temporary file and throws.
    package func commit() throws(FileError) {
        guard descriptor >= 0 else { throw FileError("write", destination, code: EBADF) }
        if fsync(descriptor) != 0 {
            let code = errno
            discard()
            throw FileError("write", destination, code: code)
        }
        let closed = close(descriptor)
        let closeCode = errno
        descriptor = -1
        guard closed == 0 || closeCode == EINTR else {
            unlink(temporaryPath)
            throw FileError("write", destination, code: closeCode)
        }
        guard rename(temporaryPath, destination) == 0 else {
            let code = errno
            unlink(temporaryPath)
            // `destination` alone (`Is a directory`), as curl names its `-o`: the temporary
            // file is gone by then.
            throw FileError("write", destination, code: code)
        }
        Folders.synchronize(Self.split(destination).folder)
    }

    /// Removes the temporary file; harmless once committed or discarded.
    package func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
    }

    /// Writes `text` to `destination` whole or not at all.
    package static func write(_ text: String, to destination: String, access: FileAccess) throws(FileError) {
        let file = try AtomicFile(destination: destination, access: access)
        try file.write(text)
        try file.commit()
    }

    /// By bytes: to String, a `/` and a combining mark after it are one Character, no `/`, so
    /// `out/\u{301}x.txt` was the name `out/\u{301}x.txt` in `.`, and a missing `out/` was not made.
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (".", path) }
        let folder = String(decoding: path.utf8[..<slash], as: UTF8.self)
        return (folder.isEmpty ? "/" : folder, String(decoding: path.utf8[path.utf8.index(after: slash)...], as: UTF8.self))
    }
}
