import Foundation

/// A path as the bytes the file system takes. Archive names need not be UTF-8 (cp437 zips,
/// latin-1 tars), and a Swift String turns what is not into U+FFFD, so that two names could
/// become one: names from an archive stay bytes from libarchive to the file system.
struct BytePath: Equatable {
    var bytes: [UInt8]

    init(_ text: String) { bytes = Array(text.utf8) }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// `root/a/b` for the components `[a, b]`.
    func appending(_ components: [[UInt8]]) -> BytePath {
        var joined = bytes
        for part in components {
            joined.append(UInt8(ascii: "/"))
            joined.append(contentsOf: part)
        }
        return BytePath(bytes: joined)
    }

    /// For messages only: bytes that are not UTF-8 show as U+FFFD.
    var shown: String { Self.shown(bytes) }

    static func shown(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The bytes of a C string, or nil for a null pointer.
    static func bytes(_ pointer: UnsafePointer<CChar>?) -> [UInt8]? {
        guard let pointer else { return nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }

    func withCString<Result>(_ body: (UnsafePointer<CChar>) -> Result) -> Result {
        (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
