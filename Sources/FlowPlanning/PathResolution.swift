/// Lexical path arithmetic: never touches the disk, so a dry run cannot either.
package enum PathResolution {
    /// `path` made absolute against `base` (itself absolute), with `.` and `..` folded away.
    /// By bytes: to String's `hasPrefix`, `/` and a combining mark after it are one Character,
    /// not a `/`.
    package static func resolve(_ path: String, against base: String) -> String {
        normalize(path.isAbsolutePath ? path : base + "/" + path)
    }

    /// By bytes, whatever the path holds: split by Characters, a part that starts with a
    /// combining mark stayed joined to the one before it, so that `..` after it took both away
    /// (`w/\u{301}x/../out` became `/out`). `/` and `.` never occur inside a UTF-8 sequence.
    package static func normalize(_ path: String) -> String {
        var path = path
        return path.withUTF8 { normalized($0) }
    }

    /// `normalize` of a path's UTF-8 bytes.
    private static func normalized(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        var folded: [UInt8] = []
        folded.reserveCapacity(bytes.count + 1)
        // Where each part kept so far starts in `folded` (at its slash), for `..`.
        var starts: [Int] = []
        var index = 0
        while index < bytes.count {
            while index < bytes.count, bytes[index] == slash { index += 1 }
            guard index < bytes.count else { break }
            let start = index
            while index < bytes.count, bytes[index] != slash { index += 1 }
            let length = index - start
            if length == 1, bytes[start] == dot { continue }
            if length == 2, bytes[start] == dot, bytes[start + 1] == dot {
                if let last = starts.popLast() { folded.removeSubrange(last...) }
                continue
            }
            starts.append(folded.count)
            folded.append(slash)
            folded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        }
        return folded.isEmpty ? "/" : String(decoding: folded, as: UTF8.self)
    }
}
