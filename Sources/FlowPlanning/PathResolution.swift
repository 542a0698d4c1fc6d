/// Lexical path arithmetic: never touches the disk, so a dry run cannot either.
package enum PathResolution {
    /// `path` made absolute against `base` (itself absolute), with `.` and `..` folded away.
    package static func resolve(_ path: String, against base: String) -> String {
        normalize(path.hasPrefix("/") ? path : base + "/" + path)
    }

    package static func normalize(_ path: String) -> String {
        var path = path
        // ASCII (nearly every path) by bytes: `split` by characters cost ~12 K instructions a
        // path, and a download task resolves a few. Beyond ASCII, by characters, as always.
        if let folded = path.withUTF8({ asciiNormalized($0) }) { return folded }
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `normalize` of an ASCII path, by bytes; nil if `bytes` are not all ASCII.
    private static func asciiNormalized(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
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
