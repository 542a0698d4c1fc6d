import Glibc

/// A write to an output that failed: the output's name (a path, or "standard output") and the
/// `errno` the kernel gave, such as `ENOSPC`.
public struct WriteFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var output: String
    public var code: Int32

    public init(output: String, code: Int32) {
        self.output = output
        self.code = code
    }

    /// `cannot write PATH: REASON`.
    public var description: String { "cannot write \(output): \(String(cString: strerror(code)))" }
}
