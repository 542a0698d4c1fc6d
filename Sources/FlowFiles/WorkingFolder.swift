import Glibc

/// flowrun's working folder, which it never changes (a task's child changes folder in itself
/// only): a path inside it is looked up from there, as the rest of the path, so that the kernel
/// does not walk again from `/` through each of the folder's parents. A no-op rerun of 20,000
/// tasks stats 40,000 such paths (ninja names them relative to its folder, and stats them so).
package enum WorkingFolder {
    /// The folder's path and a `/`; nil if it cannot be named (removed, or too long).
    static let prefix: [UInt8]? = {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        let text = String(cString: path)
        return Array((text.hasSuffix("/") ? text : text + "/").utf8)
    }()

    /// Calls `body` with `path` as a C string: from the first byte after `prefix` when `path`
    /// starts with it and goes on after it, else whole. (The same file: a relative path is
    /// walked from the working folder, which `prefix` names.)
    package static func withLookupPath<Result>(_ path: String, prefix: [UInt8]? = prefix, _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        path.withCString { whole in
            guard let prefix, startsAfter(prefix, whole) else { return body(whole) }
            return body(whole + prefix.count)
        }
    }

    /// Whether `text` begins with `prefix` and has more after it.
    private static func startsAfter(_ prefix: [UInt8], _ text: UnsafePointer<CChar>) -> Bool {
        prefix.withUnsafeBytes { bytes in
            strncmp(text, bytes.baseAddress!.assumingMemoryBound(to: CChar.self), prefix.count) == 0 && text[prefix.count] != 0
        }
    }
}
