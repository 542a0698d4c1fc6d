/// Why an attempt of a download, decompress or combine task did not produce its output, in
/// words that name the URL, the path or the entry, and whether another attempt can help.
package struct ActionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String
    /// False when the failure knows that trying again cannot help (an HTTP 404, a bad checksum,
    /// too many redirects, as curl's `--retry`); true leaves it to the task's `retries`.
    package var retryable: Bool
    /// A server's Retry-After, in milliseconds from when it was read.
    package var retryAfterMilliseconds: Int64?

    package init(_ reason: String, retryable: Bool = true, retryAfterMilliseconds: Int64? = nil) {
        self.reason = reason
        self.retryable = retryable
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }

    package var description: String { reason }

    /// The attempt was stopped: cancel, a timeout or Ctrl-C. The engine reports such an attempt
    /// by why it stopped it, not by this reason.
    package static let cancelled = ActionFailure("cancelled", retryable: false)
}
