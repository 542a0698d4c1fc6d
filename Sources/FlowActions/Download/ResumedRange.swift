import FlowModel
import NIOHTTP1

/// Whether a 206 continues the bytes a partial file holds, so that appending it cannot splice
/// two versions of the file together.
///
/// If-Range makes a conforming server answer a changed file with 200; a server that ignores it
/// (or a cache between) still sends 206, so the answer is checked rather than trusted: the
/// range must start where the kept bytes end, its total must be the length the first response
/// gave, and its ETag (else Last-Modified) must be the validator sent.
enum ResumedRange {
    /// Why the 206 cannot be appended, or nil when it can.
    static func problem(
        contentRange: String?, etag: String?, lastModified: String?, keptBytes: Int64, validator: String?, knownTotal: Int64?
    ) -> String? {
        guard keptBytes > 0 else { return "HTTP 206 to a request for the whole file" }
        guard let validator else { return "HTTP 206 with no validator to check it against" }
        guard let range = ContentRange(contentRange) else { return "HTTP 206 without a usable Content-Range" }
        if range.start != keptBytes { return "HTTP 206 resumed at byte \(range.start), not \(keptBytes)" }
        if let known = knownTotal {
            guard let total = range.total else { return "HTTP 206 without the file's length (`*`), which was \(known.counted("byte"))" }
            if total != known { return "HTTP 206 for a file of \(total.counted("byte")), which was \(known)" }
        }
        // An ETag validator is compared with the ETag, which a 206 must carry (RFC 9110 15.3.7);
        // a date with the Last-Modified, when the 206 gives one.
        if validator.hasPrefix("\"") {
            if etag != validator { return "HTTP 206 with ETag \(etag ?? "none"), not \(validator)" }
        } else if let lastModified, lastModified != validator {
            return "HTTP 206 last modified \(lastModified), not \(validator)"
        }
        return nil
    }

    /// `problem` for a response head.
    static func problem(of head: HTTPResponseHead, keptBytes: Int64, validator: String?, knownTotal: Int64?) -> String? {
        problem(
            contentRange: head.headers.first(name: "Content-Range"), etag: head.headers.first(name: "ETag"),
            lastModified: head.headers.first(name: "Last-Modified"), keptBytes: keptBytes, validator: validator, knownTotal: knownTotal)
    }
}

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange {
    var start: Int64
    var end: Int64?
    var total: Int64?

    init?(_ value: String?) {
        guard let value, value.hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard let range = parts.first, let startText = range.split(separator: "-").first, let start = Int64(startText) else { return nil }
        self.start = start
        end = range.split(separator: "-").dropFirst().first.flatMap { Int64($0) }
        total = parts.count == 2 ? Int64(parts[1]) : nil
    }

    /// Whether the range is the whole file (`bytes 0-9/10`): some servers answer every GET with
    /// 206, and curl and wget take such an answer to a plain GET as the file.
    var isWholeFile: Bool {
        guard start == 0, let end, let total else { return false }
        return end + 1 == total
    }
}
