import Glibc

/// Removes the temporary files and folders (`TemporaryName`) that a killed flowrun left in a
/// folder: those whose `OwnerLock` is free. One a live flowrun is still writing keeps its lock
/// and is left alone.
///
/// Each folder is swept once per process, when flowrun first makes a temporary there: a run
/// that writes thousands of files into one folder reads it once.
package final class LeftoverSweep: @unchecked Sendable {
    package static let shared = LeftoverSweep()

    /// Guarded by `lock`.
    private var swept: Set<String> = []
    private var lock = pthread_mutex_t()

    init() { pthread_mutex_init(&lock, nil) }

    /// Sweeps `folder` unless this process has already done so.
    package func sweepOnce(_ folder: String) {
        pthread_mutex_lock(&lock)
        let first = swept.insert(folder).inserted
        pthread_mutex_unlock(&lock)
        if first { Self.sweep(folder) }
    }

    /// Removes every leftover in `folder` whose lock is free; returns the names removed.
    @discardableResult
    package static func sweep(_ folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if TemporaryName.isTemporary(name) { names.append(name) }
        }
        closedir(dir)
        return names.filter { removeIfAbandoned(folder + "/" + $0) }
    }

    /// Takes the leftover's lock without waiting; holding it, removes the leftover.
    private static func removeIfAbandoned(_ path: String) -> Bool {
        // O_NONBLOCK: a FIFO someone put there must not block the open.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFDIR, flock(descriptor, LOCK_EX | LOCK_NB) == 0,
            OwnerLock.isStill(descriptor, at: path)
        else { return false }
        removeTree(path)
        return true
    }

    /// Removes a file, or a folder and everything in it, without following symlinks; opens
    /// the read-only folders an extraction may have made.
    package static func removeTree(_ path: String) {
        removeTree(bytes: Array(path.utf8))
    }

    /// Paths as bytes: an extraction writes names that are not UTF-8 (a latin-1 tar), which a
    /// String would turn into U+FFFD, so that they could not be removed, nor their folder.
    private static func removeTree(bytes path: [UInt8]) {
        let cPath = path.map { CChar(bitPattern: $0) } + [0]
        var info = stat()
        guard lstat(cPath, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            unlink(cPath)
            return
        }
        chmod(cPath, 0o700)
        if let dir = opendir(cPath) {
            var names: [[UInt8]] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
            }
            closedir(dir)
            for name in names { removeTree(bytes: path + [UInt8(ascii: "/")] + name) }
        }
        rmdir(cPath)
    }
}

extension LeftoverSweep {
    /// Lets `folder` be swept again: for a test that plants a leftover in a folder this process
    /// may have swept already.
    package func forget(_ folder: String) {
        pthread_mutex_lock(&lock)
        swept.remove(folder)
        pthread_mutex_unlock(&lock)
    }
}
