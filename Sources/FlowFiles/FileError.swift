import Foundation
import Glibc

/// A file-system step that failed: what was being done, to which path, and the `errno`.
package struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// "create a temporary file in", "write", "rename ... to": the verb phrase of the message.
    package var doing: String
    package var path: String
    package var code: Int32

    package init(_ doing: String, _ path: String, code: Int32 = errno) {
        self.doing = doing
        self.path = path
        self.code = code
    }

    /// `cannot DOING PATH: REASON`.
    package var description: String { "cannot \(doing) \(path): \(String(cString: strerror(code)))" }
}

extension FileError: LocalizedError {
    package var errorDescription: String? { description }
}
