/// The local file a `file:` URL names, read as curl reads it: `file:///PATH`,
/// `file://localhost/PATH` (or `127.0.0.1`), or `file:/PATH`, the query and fragment left
/// out, and the path percent-decoded. Foundation's `URL.path` decodes nothing once the URL
/// holds a raw space or non-ASCII letter (as `file://${FLOWRUN_WORKFLOW_DIR}` does in a folder
/// `my project/`): `%20` then named another file.
package enum FileURLPath {
    /// The path's bytes, or nil when `url` is not a `file:` URL of this machine.
    /// By bytes, as curl reads it: to String, a `/`, `?` or `#` and a combining mark after it
    /// are one Character, none of them (`file:///\u{301}x` was no local path, and
    /// `file:///a?\u{301}` kept its query).
    package static func bytes(of url: String) -> [UInt8]? {
        let slash = UInt8(ascii: "/")
        var rest = url.utf8[...]
        guard hasFileScheme(url) else { return nil }
        rest = rest.dropFirst(5)
        if rest.starts(with: [slash, slash]) {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: slash) ?? rest.endIndex
            guard ["", "localhost", "127.0.0.1"].contains(String(decoding: rest[..<end], as: UTF8.self).lowercased()) else { return nil }
            rest = rest[end...]
        }
        if let end = rest.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { rest = rest[..<end] }
        guard rest.first == slash else { return nil }
        return PercentEncoding.decoded(Substring(rest))
    }

    /// Whether `url` starts with `file:` in any case of its letters: what `bytes(of:)` reads
    /// first, and all a caller needs to know that `url` names no local file (ASCII only: no other
    /// letter lowercases to one of these).
    package static func hasFileScheme(_ url: String) -> Bool {
        let scheme = url.utf8.prefix(5)
        // ASCII letters lowercased; ":" is not a letter and stays.
        return scheme.lazy.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }.elementsEqual("file:".utf8)
    }

    /// The path as a String, or nil when it is not a `file:` URL of this machine or its
    /// decoded bytes are not UTF-8 (which a Swift path cannot hold) or hold a NUL (`%00`: the
    /// path would end there, and another file be read, which curl refuses).
    package static func path(of url: String) -> String? {
        bytes(of: url).flatMap { $0.contains(0) ? nil : String(validating: $0, as: UTF8.self) }
    }
}
