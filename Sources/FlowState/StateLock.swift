import FlowFiles
import FlowModel
import Foundation
import Glibc

/// The lock that lets one flowrun at a time write a state folder: `flock(2)` on `lock` in it.
///
/// The kernel drops the lock when the process ends, however it ends (a SIGKILL included), so a
/// stale lock cannot outlive its holder. The holder writes its pid into the file, for the
/// message of the one that waits. The descriptor is close-on-exec, so tasks never hold it.
package final class StateLock: Sendable {
    package let path: String
    private let descriptor: Int32

    /// Why the lock was not taken.
    package enum Failure: Error, CustomStringConvertible {
        /// Another flowrun holds it, and we were not to wait.
        case busy(path: String, holder: String?)
        /// The flowrun that holds it started this one (a task that runs flowrun on a workflow of
        /// the same folder): it waits for this one to end, so waiting for it would never end.
        case heldByAncestor(path: String, holder: Int32)
        case unusable(path: String, reason: String)

        package var description: String {
            switch self {
            case .busy(let path, let holder):
                "another flowrun\(holder.map { " (pid \($0))" } ?? "") is using the state folder \(path.pathFolder); not waiting for it (--no-wait)"
            case .heldByAncestor(let path, let holder):
                "the state folder \(path.pathFolder) is held by the flowrun (pid \(holder)) that started this one, "
                    + "and that one waits for this one to end: waiting for it would never end; give this run a state folder of its own "
                    + "(FLOWRUN_STATE_DIR) or --no-record"
            case .unusable(let path, let reason):
                "cannot lock \(path): \(reason)"
            }
        }
    }

    /// Takes the lock of `folder`. If another process holds it: with `wait`, calls `waiting`
    /// (with the holder's pid, if known) and blocks until it is free; otherwise throws `busy`.
    package init(folder: StateFolder, wait: Bool, waiting: (String?) -> Void) throws(Failure) {
        path = folder.file("lock")
        do {
            try folder.create()
        } catch {
            throw .unusable(path: path, reason: error.localizedDescription)
        }
        descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, FileAccess.owner.fileMode)
        guard descriptor >= 0 else { throw .unusable(path: path, reason: String(cString: strerror(errno))) }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK else {
                close(descriptor)
                throw .unusable(path: path, reason: String(cString: strerror(code)))
            }
            let holder = Self.pidWritten(in: descriptor)
            if let owner = Self.holdingProcess(of: folder), ProcessAncestry.includes(owner) {
                close(descriptor)
                throw .heldByAncestor(path: path, holder: owner)
            }
            guard wait else {
                close(descriptor)
                throw .busy(path: path, holder: holder)
            }
            waiting(holder)
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let reason = String(cString: strerror(errno))
                    close(descriptor)
                    throw .unusable(path: path, reason: reason)
                }
            }
        }
        // Only a hint for the next one's message: a failure to write it changes nothing.
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 { _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } }
    }

    /// The pid the holder wrote into the lock file (a hint for the message of the one that
    /// waits; it may be stale or missing), not asked of the kernel.
    private static func pidWritten(in descriptor: Int32) -> String? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty || !text.allSatisfy(\.isNumber) ? nil : text
    }

    /// The pid of the process holding the lock of `folder` now, if one does: a flowrun running
    /// a workflow of that folder. Read from the kernel's list of locks (`/proc/locks`), so that
    /// looking never takes the lock, which would make a run starting that moment wait.
    package static func holdingProcess(of folder: StateFolder) -> Int32? {
        var status = stat()
        guard stat(folder.file("lock"), &status) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else {
            return nil
        }
        // `1: FLOCK  ADVISORY  WRITE 1438 fe:00:5384 0 EOF` (major:minor in hex, then the inode);
        // a waiter's line has `->` after the number, and is no holder.
        let device = DeviceNumber(status.st_dev)
        for line in locks.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]) else { continue }
            let file = fields[5].split(separator: ":")
            if file.count == 3, UInt64(file[0], radix: 16) == device.major, UInt64(file[1], radix: 16) == device.minor, UInt64(file[2]) == UInt64(status.st_ino)
            {
                return pid
            }
        }
        return nil
    }

    /// Lets the lock go (closing the descriptor); the process ending does the same.
    package func release() {
        close(descriptor)
    }
}
