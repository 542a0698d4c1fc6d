/// Why a download attempt did not produce its file, and whether trying again can help.
package struct DownloadFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String
    /// Connection errors, timeouts, truncated bodies, 408, 429 and 5xx are; other 4xx, a bad
    /// checksum, too many redirects and local file errors are not (as curl's `--retry`).
    package var retryable: Bool
    /// A server's Retry-After, in milliseconds from when it was read.
    package var retryAfterMilliseconds: Int64?

    package init(_ reason: String, retryable: Bool, retryAfterMilliseconds: Int64? = nil) {
        self.reason = reason
        self.retryable = retryable
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }

    package var description: String { reason }
}

/// How one download attempt ended.
package enum DownloadOutcome: Sendable, Equatable {
    /// The file is at its destination; `sha256` is its digest in lowercase hex.
    case completed(sha256: String, bytes: Int64)
    case failed(DownloadFailure)
    /// Stopped by `cancel()`: nothing at the destination, no temporary file.
    case cancelled
}
