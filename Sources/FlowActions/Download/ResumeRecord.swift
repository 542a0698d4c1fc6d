import Crypto
import Foundation

/// What a later flowrun needs to resume a download an earlier one left unfinished (killed, or
/// the machine went down): the digest of the task's URL (never the URL, which may hold a
/// token), the validator If-Range sends, and the whole file's length as the first response gave
/// it. Kept beside the partial file (`ResumeNames`) as five lines, the last a SHA-256 of the
/// others, so that a record cut short or damaged is told from a sound one and ignored.
struct ResumeRecord: Equatable {
    var urlDigest: String
    var validator: String
    var expectedSize: Int64?

    init(url: String, validator: String, expectedSize: Int64?) {
        self.init(urlDigest: Self.digest(url), validator: validator, expectedSize: expectedSize)
    }

    init(urlDigest: String, validator: String, expectedSize: Int64?) {
        self.urlDigest = urlDigest
        self.validator = validator
        self.expectedSize = expectedSize
    }

    static let header = "flowrun-download-resume 1"

    static func digest(_ text: String) -> String { SHA256.hash(data: Data(text.utf8)).hex }

    /// The record's text; nil for a validator a header line cannot hold.
    var text: String? {
        guard !validator.isEmpty, !validator.contains(where: { $0.isNewline }) else { return nil }
        let body = "\(Self.header)\nurl-sha256 \(urlDigest)\nvalidator \(validator)\nsize \(expectedSize.map(String.init) ?? "-")\n"
        return body + "check \(Self.digest(body))\n"
    }

    /// The record `text` holds, or nil when it is not one whole and sound.
    init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 6, lines[5].isEmpty, lines[0] == Self.header,
            lines[1].hasPrefix("url-sha256 "), lines[2].hasPrefix("validator "), lines[3].hasPrefix("size "),
            lines[4] == "check " + Self.digest(lines[0...3].joined(separator: "\n") + "\n")
        else { return nil }
        let size = lines[3].dropFirst(5)
        guard size == "-" || Int64(size).map({ $0 > 0 }) == true else { return nil }
        self.init(urlDigest: String(lines[1].dropFirst(11)), validator: String(lines[2].dropFirst(10)), expectedSize: Int64(size))
        guard self.text == text else { return nil }
    }
}
