import FlowFiles
import Glibc

/// The processes this one descends from: its parent, the parent's parent, up to init
/// (`ProcessStat`). A flowrun started by a task of another flowrun has that flowrun among them.
enum ProcessAncestry {
    /// Whether `pid` is an ancestor of this process (this process itself is not).
    static func includes(_ pid: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: ProcessStat.bufferSize)
        var current = getppid()
        // A bound against a loop in a /proc read while processes come and go.
        for _ in 0..<4096 where current > 1 {
            if current == pid { return true }
            guard let parent = ProcessStat.read(current, into: &buffer)?.parent else { return false }
            current = parent
        }
        return false
    }
}
