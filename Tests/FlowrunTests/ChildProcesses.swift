import Foundation
import Glibc

/// The processes /proc lists as children of a process.
enum ChildProcesses {
    /// The processes whose parent is `pid`.
    static func of(_ pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let child = pid_t(entry), let stat = FileManager.default.contents(atPath: "/proc/\(entry)/stat"),
                let close = stat.lastIndex(of: UInt8(ascii: ")"))
            else { return nil }
            // "PID (COMM) STATE PPID ...": the parent is the second field after the last ')'.
            let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
            guard fields.count > 1, pid_t(String(decoding: fields[1], as: UTF8.self)) == pid else { return nil }
            return child
        }
    }
}
