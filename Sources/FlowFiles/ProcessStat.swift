import Glibc

/// What flowrun reads of a process's `/proc/PID/stat` line: its parent, its process group, and
/// whether it has ended (a zombie). One `read(2)` into a caller's buffer, so that a walk over every process of the
/// machine allocates once.
package struct ProcessStat: Sendable {
    package var pid: pid_t
    package var parent: pid_t
    package var group: pid_t
    package var isZombie: Bool

    /// Longer than any /proc/PID/stat line (52 numbers and a name of at most 64 bytes).
    package static let bufferSize = 4096

    /// `PID (COMM) STATE PPID ...`; the command name may hold spaces and parentheses, so the
    /// fields are read after its last `)`. `buffer` is `bufferSize` bytes, reused by the caller.
    package static func read(_ pid: pid_t, into buffer: inout [UInt8]) -> ProcessStat? {
        let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // One read: a stat file is made whole at the first, and is far shorter than the buffer.
        var count: Int
        repeat {
            count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
        } while count < 0 && errno == EINTR
        guard count > 0 else { return nil }
        let line = buffer[..<count]
        guard let nameEnd = line.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = line[(nameEnd + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 3)
        guard fields.count >= 3, let state = fields[0].first, let parent = number(fields[1]), let group = number(fields[2])
        else { return nil }
        return ProcessStat(
            pid: pid, parent: parent, group: group, isZombie: state == UInt8(ascii: "Z") || state == UInt8(ascii: "X"))
    }

    /// A decimal pid (the parent's: 0 for the kernel's own), as `pid_t(String)` reads it.
    private static func number(_ digits: ArraySlice<UInt8>) -> pid_t? {
        guard !digits.isEmpty, digits.count <= 10 else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value <= Int64(Int32.max) ? pid_t(value) : nil
    }
}
