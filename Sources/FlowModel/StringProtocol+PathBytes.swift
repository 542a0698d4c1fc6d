/// A path read by its bytes, as the kernel reads it. Not by String's Characters: a `/` and a
/// combining mark after it (U+0301) are one Character, which is no `/`, so `hasPrefix("/")` took
/// `/\u{301}x/.env` for a relative path, read from the workflow's folder; and swift-corelibs'
/// NSString path methods split by Characters too (`dir/\u{301}x` had no folder).
extension StringProtocol {
    /// Whether this path starts at the root.
    package var isAbsolutePath: Bool { utf8.first == UInt8(ascii: "/") }

    /// The folder this path names its last part in, as NSString's `deletingLastPathComponent`
    /// gives it: "" for a bare name, `/` for a name at the root.
    package var pathFolder: String {
        let slash = UInt8(ascii: "/")
        let bytes = trimmedPathBytes
        guard var end = bytes.lastIndex(of: slash) else { return "" }
        while end > bytes.startIndex, bytes[bytes.index(before: end)] == slash { end = bytes.index(before: end) }
        return end == bytes.startIndex ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// The last part of this path, as NSString's `lastPathComponent` gives it.
    package var pathName: String {
        let bytes = trimmedPathBytes
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), bytes.count > 1 else { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes[bytes.index(after: slash)...], as: UTF8.self)
    }

    /// The bytes without the slashes at the end, but for a path of slashes only.
    private var trimmedPathBytes: Substring.UTF8View {
        var bytes = String(self).utf8[...]
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes = bytes.dropLast() }
        return bytes
    }
}
