import Glibc

/// A write to an output that failed: the output's name (a path, or "standard output") and the
/// `errno` the kernel gave, such as `ENOSPC`.
package struct WriteFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package var output: String
    package var code: Int32

    package init(output: String, code: Int32) {
        self.output = output
        self.code = code
    }

    /// `cannot write PATH: REASON`.
    package var description: String { "cannot write \(output): \(String(cString: strerror(code)))" }
}
