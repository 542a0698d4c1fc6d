import Foundation
import Glibc

/// The processes this one descends from: its parent, the parent's parent, up to init, read
/// from `/proc/PID/stat`. A flowrun started by a task of another flowrun has that flowrun
/// among them.
enum ProcessAncestry {
    /// Whether `pid` is an ancestor of this process (this process itself is not).
    static func includes(_ pid: Int32) -> Bool {
        var current = getppid()
        // A bound against a loop in a /proc read while processes come and go.
        for _ in 0..<4096 where current > 1 {
            if current == pid { return true }
            guard let parent = parent(of: current) else { return false }
            current = parent
        }
        return false
    }

    /// The parent of `pid`: the fourth field of its stat line, after the `(name)` that may hold
    /// spaces and parentheses itself.
    private static func parent(of pid: Int32) -> Int32? {
        guard let line = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let nameEnd = line.lastIndex(of: ")")
        else { return nil }
        let fields = line[line.index(after: nameEnd)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }
}
